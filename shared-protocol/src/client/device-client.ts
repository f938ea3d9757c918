import * as v from 'valibot';
import type { Clock, TimerHandle } from '../clock.js';
import { systemClock } from '../clock.js';
import { CloseCode, refusesForGood } from '../close-codes.js';
import type { ProtocolError, Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import type { DeviceKey } from '../device-key.js';
import { MAX_PENDING_CALLS, PING_INTERVAL_MS, PONG_TIMEOUT_MS, RPC_TIMEOUT_MS } from '../limits.js';
import type { RandomBytes } from '../random.js';
import { secureRandom } from '../random.js';
import type { ChannelMessage } from '../rpc/channel.js';
import type { TetherEvent } from '../rpc/events.js';
import { decodeEvent } from '../rpc/events.js';
import type { MethodName, MethodParams, MethodResult } from '../rpc/methods.js';
import { METHODS } from '../rpc/methods.js';
import type { BackoffOptions } from '../link/backoff.js';
import type { ReconnectState } from '../link/reconnector.js';
import { Reconnector, jitterFrom } from '../link/reconnector.js';
import { DeviceChannel } from './device-channel.js';
import { Keepalive } from './keepalive.js';
import { SessionWatches } from './session-watches.js';
import { WatchSubscriber } from './watch-subscriber.js';
import type { Connect } from '../link/transport.js';

export type ClientState =
  ReconnectState | { name: 'open' } | { name: 'refused'; error: ProtocolError } | { name: 'stopped' };

export interface DeviceClientOptions {
  deviceId: string;
  /** The device's key pair, or a static key that only gives the box key (a non-extractable key). */
  deviceKeys: DeviceKey;
  hostBoxPublicKey: Uint8Array;
  connect: Connect;
  clock?: Clock;
  random?: RandomBytes;
  /** A number in [0, 1) for backoff jitter. */
  jitter?: () => number;
  backoff?: BackoffOptions;
  rpcTimeoutMs?: number;
  pingIntervalMs?: number;
  pongTimeoutMs?: number;
}

interface PendingCall {
  id: number;
  method: MethodName;
  params: unknown;
  sent: boolean;
  timer: TimerHandle;
  resolve: (result: Result<unknown>) => void;
}

/**
 * A device's connection to one host: handshake, sealed RPC with timeouts, session watches that
 * resume from the last sequence number after any reconnect (nothing missing, nothing doubled),
 * and reconnects with jittered backoff. Knows nothing of the DOM or Node: the transport, clock
 * and randomness are injected.
 *
 * Calls made while disconnected wait (bounded) until the connection opens or they time out. A
 * call already sent when the connection drops is sent again only if its method is idempotent;
 * otherwise it fails with `disconnected`, since the host may have acted on it.
 */
export class DeviceClient {
  private channel: DeviceChannel | undefined;
  private stateValue: ClientState = { name: 'idle' };
  /**
   * Asked to reconnect now while an attempt was under way (the network came back as it dialled):
   * if that attempt fails, the next goes at once, not after the backoff earlier failures built up.
   */
  private dialAgainAtOnce = false;
  private readonly clock: Clock;
  private readonly random: RandomBytes;
  private readonly reconnector: Reconnector;
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private readonly watches = new SessionWatches({
    subscribe: (sessionId, watch) => this.subscriber.subscribe(sessionId, watch),
    duplicate: () => void this.skipped.duplicate++,
  });
  private readonly eventListeners = new Set<(event: TetherEvent) => void>();
  private readonly stateListeners = new Set<(state: ClientState) => void>();
  private readonly watchErrorListeners = new Set<(sessionId: string, error: ProtocolError) => void>();
  private readonly keepalive: Keepalive;
  private readonly subscriber: WatchSubscriber;
  /** Events skipped: unknown types, invalid shapes, duplicates already delivered. */
  readonly skipped = { unknown: 0, invalid: 0, duplicate: 0 };

  constructor(private readonly options: DeviceClientOptions) {
    this.clock = options.clock ?? systemClock;
    this.random = options.random ?? secureRandom;
    this.reconnector = new Reconnector({
      clock: this.clock,
      jitter: options.jitter ?? jitterFrom(this.random),
      ...(options.backoff ? { backoff: options.backoff } : {}),
    });
    this.keepalive = new Keepalive(this.clock, {
      intervalMs: options.pingIntervalMs ?? PING_INTERVAL_MS,
      pongTimeoutMs: options.pongTimeoutMs ?? PONG_TIMEOUT_MS,
      nextNumber: () => this.nextId++,
    });
    this.subscriber = new WatchSubscriber({
      clock: this.clock,
      watch: (params) => this.call('sessions.watch', params),
      current: (sessionId) => this.watches.get(sessionId),
      refused: (sessionId, error) => this.watchErrorListeners.forEach((listener) => listener(sessionId, error)),
    });
  }

  get state(): ClientState {
    return this.stateValue;
  }

  /** Starts connecting; reconnects until `stop()` or a refusal that no retry could fix. */
  start(): void {
    if (this.stateValue.name !== 'idle' && this.stateValue.name !== 'stopped') return;
    this.reconnector.reset();
    void this.connect();
  }

  stop(): void {
    this.dialAgainAtOnce = false;
    this.setState({ name: 'stopped' });
    this.reconnector.stop();
    this.keepalive.stop();
    this.subscriber.reset();
    const channel = this.channel;
    this.channel = undefined;
    channel?.close(CloseCode.Normal, 'client stopped');
    for (const call of [...this.pending.values()]) this.settle(call, fail('disconnected', 'client stopped'));
  }

  /**
   * Connects now instead of waiting out the backoff (the app came back online or to the front).
   * The failures so far are forgotten: they were the network that has just changed, so a dial
   * that fails now is tried again at the shortest step, not after the up to 30 s a long outage
   * built up (after one unlucky dial, the phone stayed out of reach that long).
   */
  reconnectNow(): void {
    if (this.stateValue.name === 'waiting') {
      this.reconnector.reset();
      this.reconnector.wake();
    } else if (this.stateValue.name === 'connecting') {
      this.reconnector.reset();
      this.dialAgainAtOnce = true;
    } else if (this.stateValue.name === 'open') {
      this.keepalive.ping();
    }
  }

  onEvent(listener: (event: TetherEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onState(listener: (state: ClientState) => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** A watch the host refused (the session is gone, the scope is missing). */
  onWatchError(listener: (sessionId: string, error: ProtocolError) => void): () => void {
    this.watchErrorListeners.add(listener);
    return () => this.watchErrorListeners.delete(listener);
  }

  call<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options: { timeoutMs?: number } = {},
  ): Promise<Result<MethodResult<M>>> {
    if (this.stateValue.name === 'refused') return Promise.resolve({ ok: false, error: this.stateValue.error });
    if (this.stateValue.name === 'stopped') return Promise.resolve(fail('disconnected', 'client stopped'));
    if (this.pending.size >= MAX_PENDING_CALLS) return Promise.resolve(fail('busy', 'too many calls waiting'));
    return new Promise((resolve) => {
      const id = this.nextId++;
      const timer = this.clock.setTimeout(
        () => this.settle(call, fail('timeout', `${method} got no reply in time`)),
        options.timeoutMs ?? this.options.rpcTimeoutMs ?? RPC_TIMEOUT_MS,
      );
      const settle = resolve as (r: Result<unknown>) => void;
      const call: PendingCall = { id, method, params, sent: false, timer, resolve: settle };
      this.pending.set(id, call);
      if (this.stateValue.name === 'open') this.sendCall(call);
    });
  }

  /**
   * Follows a session from `after` (the last sequence number held; 0 for everything). Events
   * arrive through `onEvent`, each exactly once and in order. Survives reconnects.
   *
   * With `tail`, each (re)subscribe replays at most that many of the newest events: when more
   * came in meanwhile, a `watch.skipped` event (through `onEvent`, before the first replayed
   * event) names the range left out, which the caller reads as history pages when it needs it.
   */
  watch(sessionId: string, after: number, options: { tail?: number } = {}): Result<void> {
    const added = this.watches.add(sessionId, after, options.tail);
    if (!added.ok) return added;
    if (added.value && this.stateValue.name === 'open') this.subscriber.subscribe(sessionId, added.value);
    return ok(undefined);
  }

  unwatch(sessionId: string): void {
    if (!this.watches.delete(sessionId)) return;
    if (this.stateValue.name === 'open') void this.call('sessions.unwatch', { id: sessionId });
  }

  /** The last sequence number delivered for a watched session. */
  lastSeq(sessionId: string): number | undefined {
    return this.watches.get(sessionId)?.lastSeq;
  }

  private async connect(): Promise<void> {
    this.setState({ name: 'connecting', attempt: this.reconnector.dialling() });
    let result: Result<DeviceChannel>;
    try {
      const transport = await this.options.connect();
      if (this.stateValue.name === 'stopped') {
        transport.close(CloseCode.Normal, 'client stopped');
        return;
      }
      result = await DeviceChannel.open(transport, {
        deviceId: this.options.deviceId,
        deviceKeys: this.options.deviceKeys,
        hostBoxPublicKey: this.options.hostBoxPublicKey,
        clock: this.clock,
        random: this.random,
      });
    } catch (error) {
      result = fail('unavailable', error instanceof Error ? error.message : 'connection failed');
    }
    if (this.stateValue.name === 'stopped') {
      if (result.ok) result.value.close();
      return;
    }
    if (!result.ok) return this.lost(result.error);
    this.opened(result.value);
  }

  private opened(channel: DeviceChannel): void {
    this.dialAgainAtOnce = false;
    this.channel = channel;
    this.reconnector.opened();
    this.setState({ name: 'open' });
    // First, so that the replays below may come batched. No call waits on it: an older host
    // answers `unknown-method` and sends single frames, which the channel takes all the same.
    channel.send({ t: 'req', id: this.nextId++, method: 'channel.batch', params: {} });
    for (const [sessionId, watch] of this.watches.entries()) this.subscriber.subscribe(sessionId, watch);
    for (const call of this.pending.values()) if (!call.sent) this.sendCall(call);
    this.keepalive.start(channel);
    // Last: attaching the handlers hands over anything that arrived with the welcome (a goodbye
    // ends the connection at once), so everything above must already be in place.
    channel.onMessage = (message) => this.receive(message);
    channel.onClose = (error) => {
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.lost(error);
    };
  }

  /** The connection ended; `sealed` when the host said why inside the channel (a `bye`). */
  private lost(error: ProtocolError, sealed = false): void {
    if (this.stateValue.name === 'stopped') return;
    this.keepalive.stop();
    this.subscriber.reset();
    for (const call of [...this.pending.values()]) {
      // Watches are made again, from the latest sequence number, when the connection reopens.
      if (call.method === 'sessions.watch') this.settle(call, fail('disconnected', 'connection lost'));
      else if (!call.sent) continue;
      else if (METHODS[call.method].idempotent) call.sent = false;
      else this.settle(call, fail('disconnected', `connection lost before ${call.method} was answered`));
    }
    if (sealed && refusesForGood(error.code)) {
      this.reconnector.stop();
      this.setState({ name: 'refused', error });
      for (const call of [...this.pending.values()]) this.settle(call, { ok: false, error });
      return;
    }
    const plan = this.reconnector.retry(() => void this.connect());
    if (!plan) return;
    this.setState({ name: 'waiting', attempt: plan.attempt, retryAt: plan.retryAt, error });
    if (this.dialAgainAtOnce) {
      this.dialAgainAtOnce = false;
      this.reconnector.wake();
    }
  }

  private receive(message: ChannelMessage): void {
    this.keepalive.heard();
    switch (message.t) {
      case 'res': {
        const call = this.pending.get(message.id);
        if (!call) return;
        if ('error' in message) return this.settle(call, { ok: false, error: message.error });
        const parsed = v.safeParse(METHODS[call.method].result, message.result);
        this.settle(
          call,
          parsed.success ? ok(parsed.output) : fail('malformed', `${call.method} answered an invalid result`),
        );
        return;
      }
      case 'evt':
        return this.receiveEvent(message.event);
      case 'ping':
        this.channel?.send({ t: 'pong', n: message.n });
        return;
      case 'pong':
        return; // its timer is cleared above, as for any message
      case 'bye': {
        // The host says why, sealed, before it closes; that reason wins over the close that follows.
        const channel = this.channel;
        this.channel = undefined;
        channel?.close(CloseCode.Normal, message.code);
        this.lost({ code: message.code, message: message.message }, true);
        return;
      }
      case 'req':
        // Hosts do not call devices; ignore rather than fail the channel.
        return;
    }
  }

  private receiveEvent(input: unknown): void {
    const decoded = decodeEvent(input);
    if (decoded.kind !== 'event') {
      this.skipped[decoded.kind]++;
      return;
    }
    const event = this.watches.accept(decoded.event);
    if (event) for (const listener of this.eventListeners) listener(event);
  }

  private sendCall(call: PendingCall): void {
    const sent = this.channel?.send({ t: 'req', id: call.id, method: call.method, params: call.params });
    if (!sent) return;
    if (!sent.ok) return this.settle(call, sent);
    call.sent = true;
  }

  private settle(call: PendingCall, result: Result<unknown>): void {
    if (!this.pending.delete(call.id)) return;
    this.clock.clearTimeout(call.timer);
    call.resolve(result);
  }

  private setState(state: ClientState): void {
    this.stateValue = state;
    for (const listener of this.stateListeners) listener(state);
  }
}
