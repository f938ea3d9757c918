import type {
  ChannelMessage,
  Clock,
  ErrorCode,
  HostIdentity,
  RandomBytes,
  ReplayCache,
  Result,
  Scope,
  SessionEvent,
  TimerHandle,
} from '@tether/shared-protocol';
import {
  CloseCode,
  FrameOpener,
  FrameSealer,
  HandshakeResponder,
  MAX_WATCHED_SESSIONS,
  decodeChannelMessage,
  encodeChannelMessage,
  errorToCloseCode,
  protocolError,
} from '@tether/shared-protocol';
import type { EventLog } from '../store/event-log.js';
import { replayThenFollow } from '../store/replay.js';
import type { DeviceRecord } from '../store/device-store.js';
import type { MethodHandlers } from './dispatch.js';
import { dispatch } from './dispatch.js';
import type { ServerTransport } from './server-transport.js';
import type { Counters } from './stats.js';

/** Bytes a device may have queued before a live event closes it as too slow: 4 MiB, several
 * seconds of a busy transcript on a slow phone link. It resumes from its last sequence number. */
export const HIGH_WATER_BYTES = 4 * 1024 * 1024;
/** A replay sends its next page once the queue is below this: 1 MiB. */
export const LOW_WATER_BYTES = 1024 * 1024;
/** Milliseconds between checks of the queue while a replay waits. */
const DRAIN_POLL_MS = 25;
/** Milliseconds a new connection has to send its hello: 10 s, the client's own handshake timeout. */
export const HELLO_TIMEOUT_MS = 10_000;
/** Requests one connection may have in progress at once. */
const MAX_IN_FLIGHT = 32;

export type MethodHandler = (
  params: unknown,
  connection: DeviceConnection,
) => Result<unknown> | Promise<Result<unknown>>;

export interface ConnectionDeps {
  identity: HostIdentity;
  lookupDevice: (deviceId: string) => DeviceRecord | undefined;
  replay: ReplayCache;
  clock: Clock;
  random: RandomBytes;
  stats: Counters;
  log: EventLog;
  handlers: MethodHandlers;
  /** Called once the handshake succeeded and once the connection closed. */
  onOpen: (connection: DeviceConnection) => void;
  onClose: (connection: DeviceConnection) => void;
}

interface Watch {
  /** True once the replay caught up and live events flow. */
  live: boolean;
}

/**
 * One device's connection: the handshake, then sealed requests, answers and events. Every
 * refusal is counted under its reason and ends the connection without saying more than the
 * close code; the server stays healthy.
 */
export class DeviceConnection {
  device: DeviceRecord | undefined;
  private sealer: FrameSealer | undefined;
  private opener: FrameOpener | undefined;
  private readonly watches = new Map<string, Watch>();
  private inFlight = 0;
  private closed = false;
  private helloTimer: TimerHandle | undefined;

  constructor(
    readonly transport: ServerTransport,
    private readonly deps: ConnectionDeps,
  ) {
    transport.onMessage = (data) => this.receive(data);
    transport.onClose = () => this.finish();
    this.helloTimer = deps.clock.setTimeout(
      () => this.refuse('handshake-timeout', CloseCode.HandshakeFailed, 'no hello'),
      HELLO_TIMEOUT_MS,
    );
  }

  get scopes(): readonly Scope[] {
    return this.device?.scopes ?? [];
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends a session event if this connection should see it now (see the class comment). */
  deliver(event: SessionEvent): void {
    if (this.closed || !this.device) return;
    const watch = this.watches.get(event.sessionId);
    if (watch) {
      // While replaying, the replay itself will reach this event: sending it now would jump ahead.
      if (watch.live) this.sendLive({ t: 'evt', event });
    } else if (event.type === 'session.updated' && this.scopes.includes('watch')) {
      this.sendLive({ t: 'evt', event });
    }
  }

  /**
   * `sessions.watch`: replays after `after`, then live. It returns at once (the answer goes out
   * while the replay runs: a long one must not outlast the client's request timeout). A second
   * watch of the same session restarts from its own `after`; the first replay stops.
   */
  watch(sessionId: string, after: number): Result<void> {
    if (!this.watches.has(sessionId) && this.watches.size >= MAX_WATCHED_SESSIONS) {
      return { ok: false, error: protocolError('busy', `watching at most ${MAX_WATCHED_SESSIONS} sessions`) };
    }
    const watch: Watch = { live: false };
    this.watches.set(sessionId, watch);
    const current = () => !this.closed && this.watches.get(sessionId) === watch;
    void replayThenFollow(
      this.deps.log,
      sessionId,
      after,
      (event) => {
        this.send({ t: 'evt', event });
        return this.transport.bufferedAmount() < LOW_WATER_BYTES;
      },
      () => (watch.live = true),
      () => this.drained(),
      current,
    );
    return { ok: true, value: undefined };
  }

  unwatch(sessionId: string): void {
    this.watches.delete(sessionId);
  }

  /** Says why, then closes (revoked, host stopping). */
  sendBye(code: ErrorCode, message: string, closeCode: number): void {
    if (this.closed) return;
    if (this.sealer) this.send({ t: 'bye', code, message });
    this.transport.close(closeCode, code);
    this.finish();
  }

  private receive(data: Uint8Array): void {
    if (this.closed) return;
    if (!this.opener) return this.handshake(data);
    const plain = this.opener.open(data);
    if (!plain.ok) return this.refuse(`frame:${plain.error.code}`, CloseCode.ProtocolError, plain.error.code);
    const message = decodeChannelMessage(plain.value);
    if (!message) {
      this.deps.stats.add('message:undecodable');
      return;
    }
    switch (message.t) {
      case 'req':
        void this.request(message.id, message.method, message.params);
        return;
      case 'ping':
        this.send({ t: 'pong', n: message.n });
        return;
      case 'pong':
      case 'res':
      case 'evt':
      case 'bye':
        this.deps.stats.add(`message:unexpected-${message.t}`);
        return;
    }
  }

  private handshake(hello: Uint8Array): void {
    let device: DeviceRecord | undefined;
    const responder = new HandshakeResponder({
      hostKeys: this.deps.identity.box,
      lookupDevice: (id) => {
        device = this.deps.lookupDevice(id);
        return device && !device.revoked ? device.publicKey : undefined;
      },
      clock: this.deps.clock,
      random: this.deps.random,
      replay: this.deps.replay,
    });
    const accepted = responder.acceptHello(hello);
    if (!accepted.ok || !device) {
      const error = accepted.ok ? protocolError('handshake-failed', 'handshake refused') : accepted.error;
      return this.refuse(`handshake:${error.code}`, errorToCloseCode(error.code), error.code);
    }
    if (this.helloTimer !== undefined) this.deps.clock.clearTimeout(this.helloTimer);
    this.device = device;
    this.sealer = new FrameSealer(accepted.value.keys.send);
    this.opener = new FrameOpener(accepted.value.keys.receive);
    this.transport.send(accepted.value.welcome);
    this.deps.stats.add('handshake:accepted');
    this.deps.onOpen(this);
  }

  private async request(id: number, method: string, params: unknown): Promise<void> {
    if (!this.device) return;
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.deps.stats.add('request:busy');
      this.send({ t: 'res', id, error: protocolError('busy', 'too many requests in progress') });
      return;
    }
    this.inFlight++;
    try {
      const result = await dispatch(
        method,
        params,
        { device: this.device, connection: this },
        this.deps.handlers,
        this.deps.stats,
      );
      this.send(result.ok ? { t: 'res', id, result: result.value } : { t: 'res', id, error: result.error });
    } finally {
      this.inFlight--;
    }
  }

  private send(message: ChannelMessage): void {
    if (this.closed || !this.sealer) return;
    const frame = this.sealer.seal(encodeChannelMessage(message));
    if (!frame.ok) {
      // Larger than a frame may be: say so in place of the message, if it was an answer.
      this.deps.stats.add('send:too-large');
      if (message.t === 'res')
        this.send({ t: 'res', id: message.id, error: protocolError('too-large', 'the answer is too large to send') });
      return;
    }
    this.transport.send(frame.value);
  }

  /** Sends a live message, or closes a device that has fallen too far behind. */
  private sendLive(message: ChannelMessage): void {
    if (this.transport.bufferedAmount() > HIGH_WATER_BYTES) {
      this.deps.stats.add('closed:slow-consumer');
      this.sendBye('slow-consumer', 'too far behind; reconnect to resume', CloseCode.SlowConsumer);
      return;
    }
    this.send(message);
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.closed || this.transport.bufferedAmount() < LOW_WATER_BYTES) resolve();
        else this.deps.clock.setTimeout(check, DRAIN_POLL_MS);
      };
      check();
    });
  }

  private refuse(reason: string, code: number, text: string): void {
    this.deps.stats.add(reason);
    this.transport.close(code, text);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.helloTimer !== undefined) this.deps.clock.clearTimeout(this.helloTimer);
    this.watches.clear();
    if (this.device) this.deps.onClose(this);
  }
}
