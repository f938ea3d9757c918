import type { Clock } from '../clock.js';
import { CloseCode, errorToCloseCode } from '../close-codes.js';
import type { ProtocolError } from '../errors.js';
import type { BoxKeyPair } from '../identity.js';
import type { RandomBytes } from '../random.js';
import { ReplayCache } from '../replay-cache.js';
import type { ChannelMessage } from '../rpc/channel.js';
import type { HostEvent, SessionEvent, SessionEventBody } from '../rpc/events.js';
import { HostChannel } from '../server/host-channel.js';
import type { Transport } from '../link/transport.js';

type Handler = (
  params: unknown,
  connection: FakeConnection,
) => { result: unknown } | { error: ProtocolError } | 'no-reply';

/**
 * A minimal host for client tests: the real handshake and frames over any transport, an in-memory
 * event log per session with watch/replay, and pluggable method handlers. Not a model of the real
 * host's policies; just enough protocol to exercise a client.
 */
export class FakeHost {
  readonly logs = new Map<string, SessionEvent[]>();
  readonly connections = new Set<FakeConnection>();
  readonly handlers = new Map<string, Handler>();
  readonly devices = new Map<string, Uint8Array>();
  /** Devices that complete the handshake and are then told, sealed, that they were revoked. */
  readonly revoked = new Set<string>();
  readonly calls: { method: string; params: unknown }[] = [];
  private readonly replay: ReplayCache;

  constructor(
    readonly keys: BoxKeyPair,
    readonly clock: Clock,
    readonly random: RandomBytes,
  ) {
    this.replay = new ReplayCache(clock);
    this.handlers.set('sessions.watch', (params, connection) => {
      const { id, after, tail } = params as { id: string; after: number; tail?: number };
      connection.watching.add(id);
      const log = this.logs.get(id) ?? [];
      let from = after;
      if (tail !== undefined && log.length - after > tail) {
        from = log.length - tail;
        connection.send({ t: 'evt', event: { type: 'watch.skipped', sessionId: id, after, to: from } });
      }
      for (const event of log) if (event.seq > from) connection.send({ t: 'evt', event });
      return { result: { session: summary(id, log.length, clock.now()) } };
    });
    this.handlers.set('sessions.history', (params) => {
      const { id, before, limit } = params as { id: string; before?: number; limit?: number };
      const log = this.logs.get(id) ?? [];
      const end = Math.min(before ?? log.length + 1, log.length + 1);
      const start = Math.max(1, end - (limit ?? 500));
      return { result: { events: log.slice(start - 1, end - 1), after: start - 1, lastSeq: log.length } };
    });
    this.handlers.set('sessions.unwatch', (params, connection) => {
      connection.watching.delete((params as { id: string }).id);
      return { result: {} };
    });
  }

  accept(transport: Transport): void {
    transport.onMessage = (hello) => {
      const accepted = HostChannel.accept(hello, {
        hostKeys: this.keys,
        lookupDevice: (id) => this.devices.get(id),
        clock: this.clock,
        random: this.random,
        replay: this.replay,
      });
      if (!accepted.ok) {
        transport.close(errorToCloseCode(accepted.error.code), accepted.error.code);
        return;
      }
      transport.send(accepted.value.welcome);
      const connection = new FakeConnection(this, transport, accepted.value.channel);
      if (this.revoked.has(accepted.value.channel.deviceId)) {
        connection.send({ t: 'bye', code: 'revoked', message: 'this device was revoked' });
        transport.close(CloseCode.Revoked, 'revoked');
        return;
      }
      this.connections.add(connection);
      transport.onClose = () => this.connections.delete(connection);
    };
  }

  /** Appends a message event to a session's log and sends it to every connection watching. */
  append(sessionId: string, text: string): SessionEvent {
    const log = this.logs.get(sessionId) ?? [];
    this.logs.set(sessionId, log);
    const event: SessionEvent = {
      type: 'message',
      sessionId,
      seq: log.length + 1,
      at: this.clock.now(),
      messageId: `m${log.length + 1}`,
      role: 'assistant',
      text,
    };
    log.push(event);
    for (const connection of this.connections)
      if (connection.watching.has(sessionId)) connection.send({ t: 'evt', event });
    return event;
  }

  /** Appends any session event (its number and time filled in) and sends it to watchers. */
  appendEvent(sessionId: string, body: SessionEventBody): SessionEvent {
    const log = this.logs.get(sessionId) ?? [];
    this.logs.set(sessionId, log);
    const event = { ...body, sessionId, seq: log.length + 1, at: this.clock.now() } as SessionEvent;
    log.push(event);
    for (const connection of this.connections)
      if (connection.watching.has(sessionId)) connection.send({ t: 'evt', event });
    return event;
  }

  /** Sends a host event (not part of any session's log) to every connection. */
  publish(event: HostEvent): void {
    for (const connection of this.connections) connection.send({ t: 'evt', event });
  }

  dropAll(): void {
    for (const connection of this.connections) connection.transport.close(CloseCode.Abnormal, 'dropped');
    this.connections.clear();
  }
}

export class FakeConnection {
  readonly watching = new Set<string>();

  constructor(
    private readonly host: FakeHost,
    readonly transport: Transport,
    private readonly channel: HostChannel,
  ) {
    transport.onMessage = (data) => this.receive(data);
  }

  send(message: ChannelMessage): void {
    const frame = this.channel.seal(message);
    if (frame.ok) this.transport.send(frame.value);
  }

  private receive(data: Uint8Array): void {
    const opened = this.channel.open(data);
    if (!opened.ok) return this.transport.close(CloseCode.ProtocolError, opened.error.code);
    if (opened.value.kind !== 'message') return;
    const message = opened.value.message;
    if (message.t === 'ping') return this.send({ t: 'pong', n: message.n });
    if (message.t !== 'req') return;
    this.host.calls.push({ method: message.method, params: message.params });
    const handler = this.host.handlers.get(message.method);
    const answer = handler
      ? handler(message.params, this)
      : { error: { code: 'unknown-method' as const, message: message.method } };
    if (answer === 'no-reply') return;
    this.send(
      'error' in answer
        ? { t: 'res', id: message.id, error: answer.error }
        : { t: 'res', id: message.id, result: answer.result },
    );
  }
}

function summary(id: string, lastSeq: number, now: number) {
  return {
    id,
    title: id,
    kind: 'agent' as const,
    place: 'local',
    cwd: '/tmp',
    model: 'demo',
    status: 'idle' as const,
    archived: false,
    autoApprove: false,
    createdAt: now,
    updatedAt: now,
    lastSeq,
    pendingApprovals: 0,
    queued: 0,
    lastLine: '',
  };
}
