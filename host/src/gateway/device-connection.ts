import type { Secretbox, X25519 } from '@tether/shared-protocol';
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
  TetherEvent,
  TimerHandle,
} from '@tether/shared-protocol';
import {
  CloseCode,
  HANDSHAKE_TIMEOUT_MS,
  HostChannel,
  MAX_BATCH_MESSAGES,
  MAX_WATCHED_SESSIONS,
  encodeChannelMessage,
  errorToCloseCode,
  fail,
  ok,
  protocolError,
} from '@tether/shared-protocol';
import type { Caller, ConnectionPort } from '../rpc/caller.js';
import type { Dispatch } from '../rpc/dispatch.js';
import type { DeviceRecord } from '../store/device-store.js';
import type { EventLog } from '../store/event-log.js';
import type { ShareLinkRecord } from '../store/share-store.js';
import { linkWorks } from '../store/share-store.js';
import type { ViewerSide } from './viewer-side.js';
import { viewerAsDevice } from './viewer-side.js';
import type { GatewayTransport } from './gateway-transport.js';
import type { Outbox } from '../streams/outbox.js';
import { HIGH_WATER_BYTES, LOW_WATER_BYTES } from '../streams/outbox.js';
import type { HostCounterName, HostCounters } from '../stats/host-counters.js';
import type { Subscription } from '../streams/subscription.js';
import { SendBatcher } from './send-batcher.js';
import {
  HOST_ROUTE,
  LatestOnly,
  SESSION_LIST_ROUTE,
  SessionWatch,
  routeOf,
  sessionRoute,
  updateSubject,
} from './subscriptions.js';

/** Milliseconds between checks of the transport's queue while a paced sender waits. */
const DRAIN_POLL_MS = 25;
/** Requests one connection may have in progress at once. */
export const MAX_IN_FLIGHT = 32;
/** Subscriptions one connection may hold: its session watches, the session list, host events and
 * a few terminals. */
export const MAX_SUBSCRIPTIONS = MAX_WATCHED_SESSIONS + 16;

export interface ConnectionDeps {
  identity: HostIdentity;
  lookupDevice: (deviceId: string) => DeviceRecord | undefined;
  replay: ReplayCache;
  clock: Clock;
  random: RandomBytes;
  /** The X25519 chosen at start; tweetnacl's unless given. */
  x25519?: X25519;
  /** The secretbox chosen at start for this channel's frames; tweetnacl's unless given. */
  secretbox?: Secretbox;
  stats: HostCounters;
  log: EventLog;
  dispatch: Dispatch<Caller>;
  /** Share links' viewers, when the host has links: checked after the devices at each hello. */
  viewers?: ViewerSide;
  /** Called once the handshake succeeded. */
  onOpen: (connection: DeviceConnection) => void;
  /** Called once when the connection ends, whether or not its handshake succeeded. */
  onClose: (connection: DeviceConnection) => void;
}

/**
 * One device's connection, over any transport (a WebSocket, a relay link's stream): the
 * handshake, then sealed requests, answers and events. What the device follows is a set of
 * subscriptions, each pacing itself by the shared outbox with its own policy. Every refusal is
 * counted under its reason and ends the connection without saying more than the close code.
 */
export class DeviceConnection implements ConnectionPort {
  device: DeviceRecord | undefined;
  /** Set when this is a share link's viewer: then `device` stands for the link, with no scope. */
  viewer: ShareLinkRecord | undefined;
  private channel: HostChannel | undefined;
  private readonly subscriptions = new Map<string, Subscription>();
  private inFlight = 0;
  private closed = false;
  private helloTimer: TimerHandle | undefined;
  readonly outbox: Outbox;
  /** Everything sent to the device goes through it: batched once the device says it takes them. */
  readonly batcher = new SendBatcher({
    seal: (plain) => this.channel!.sealBinary(plain),
    write: (frame) => {
      if (!this.closed) this.transport.send(frame);
    },
  });

  constructor(
    readonly transport: GatewayTransport,
    private readonly deps: ConnectionDeps,
  ) {
    transport.onMessage = (data) => this.receive(data);
    transport.onClose = () => this.finish();
    // Nothing heard in time, as a missed pong: a device too slow to say hello is not refused
    // (4001 would tell it this host no longer knows it); it tries again.
    this.helloTimer = deps.clock.setTimeout(
      () => this.refuse('handshake-timeout', CloseCode.PingTimeout, 'no hello'),
      HANDSHAKE_TIMEOUT_MS,
    );
    const isClosed = () => this.closed;
    this.outbox = {
      send: (message) => this.send(message),
      sendBinary: (plain) => this.sendBinary(plain),
      buffered: () => this.queued(),
      drained: () => this.drained(),
      get closed() {
        return isClosed();
      },
      cutOff: () => {
        this.deps.stats.add('closed:slow-consumer');
        this.sendBye('slow-consumer', 'too far behind; reconnect to resume', CloseCode.SlowConsumer);
      },
    };
  }

  get scopes(): readonly Scope[] {
    return this.device?.scopes ?? [];
  }

  get isClosed(): boolean {
    return this.closed;
  }

  acceptBatches(): number {
    this.batcher.enable();
    return MAX_BATCH_MESSAGES;
  }

  /** Bytes on their way to the device: handed to the transport, or queued for the next batch. */
  private queued(): number {
    return this.transport.bufferedAmount() + this.batcher.pendingBytes;
  }

  /** Offers a published event: the subscription on its route takes it, if there is one. */
  deliver(event: TetherEvent): void {
    if (this.closed || !this.device) return;
    const subscription = this.subscriptions.get(routeOf(event));
    if (subscription) subscription.deliver(event);
    else if (event.type === 'session.updated') this.subscriptions.get(SESSION_LIST_ROUTE)?.deliver(event);
  }

  /**
   * `sessions.watch`: replays after `after`, then live. It returns at once (the answer goes out
   * while the replay runs: a long one must not outlast the client's request timeout). A second
   * watch of the same session restarts from its own `after`; the first replay stops.
   */
  watch(sessionId: string, after: number, tail?: number): Result<void> {
    const key = sessionRoute(sessionId);
    const watching = [...this.subscriptions.values()].filter((s) => s instanceof SessionWatch).length;
    if (!this.subscriptions.has(key) && watching >= MAX_WATCHED_SESSIONS) {
      return fail('busy', `watching at most ${MAX_WATCHED_SESSIONS} sessions`);
    }
    // A viewer is sent each event as the link shows it, encoded once for every viewer.
    const viewer = this.viewer;
    const frame = this.deps.viewers?.frame;
    const send =
      viewer && frame ? (event: SessionEvent) => this.sendBinary(frame(event, viewer.includePhotos)) : undefined;
    return this.subscribe(new SessionWatch(this.deps.log, sessionId, after, this.outbox, tail, send));
  }

  unwatch(sessionId: string): void {
    this.unsubscribe(sessionRoute(sessionId));
  }

  /** Adds a subscription, replacing (and ending) one under the same key. */
  subscribe(subscription: Subscription): Result<void> {
    const existing = this.subscriptions.get(subscription.key);
    if (!existing && this.subscriptions.size >= MAX_SUBSCRIPTIONS) {
      subscription.end();
      return fail('busy', `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`);
    }
    existing?.end();
    this.subscriptions.set(subscription.key, subscription);
    return ok(undefined);
  }

  unsubscribe(key: string): void {
    this.subscriptions.get(key)?.end();
    this.subscriptions.delete(key);
  }

  subscription(key: string): Subscription | undefined {
    return this.subscriptions.get(key);
  }

  /** Says why, sealed, then closes (revoked, host stopping, too slow). */
  sendBye(code: ErrorCode, message: string, closeCode: number): void {
    if (this.closed) return;
    if (this.channel) this.send({ t: 'bye', code, message });
    this.batcher.flush();
    this.transport.close(closeCode, code);
    this.finish();
  }

  private receive(data: Uint8Array): void {
    if (this.closed) return;
    if (!this.channel) return this.handshake(data);
    const opened = this.channel.open(data);
    if (!opened.ok) return this.refuse(`frame:${opened.error.code}`, CloseCode.ProtocolError, opened.error.code);
    if (opened.value.kind === 'undecodable') {
      this.deps.stats.add('message:undecodable');
      return;
    }
    const message = opened.value.message;
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
    let viewer: ShareLinkRecord | undefined;
    const accepted = HostChannel.accept(hello, {
      hostKeys: this.deps.identity.box,
      // A revoked device still completes the handshake, so that it can be told so sealed: an
      // unsealed close code proves nothing, and a device must not unpair on a forged one.
      lookupDevice: (id) => {
        device = this.deps.lookupDevice(id);
        viewer = device ? undefined : this.deps.viewers?.lookup(id);
        if (viewer) device = viewerAsDevice(viewer);
        return device?.publicKey;
      },
      clock: this.deps.clock,
      random: this.deps.random,
      replay: this.deps.replay,
      ...(this.deps.x25519 ? { x25519: this.deps.x25519 } : {}),
      ...(this.deps.secretbox ? { secretbox: this.deps.secretbox } : {}),
    });
    if (!accepted.ok || !device) {
      const error = accepted.ok ? protocolError('handshake-failed', 'handshake refused') : accepted.error;
      return this.refuse(`handshake:${error.code}`, errorToCloseCode(error.code), error.code);
    }
    if (this.helloTimer !== undefined) this.deps.clock.clearTimeout(this.helloTimer);
    this.channel = accepted.value.channel;
    this.transport.send(accepted.value.welcome);
    if (device.revoked) {
      this.deps.stats.add('handshake:revoked');
      return this.sendBye('revoked', 'this device was revoked at the computer; pair again', CloseCode.Revoked);
    }
    // A link that ended says so, sealed, like a revoked device: its page stops and says why.
    if (viewer && !linkWorks(viewer, this.deps.clock.now())) {
      const revoked = viewer.revokedAt !== null;
      this.deps.stats.add(revoked ? 'viewer:revoked' : 'viewer:expired');
      return this.sendBye('revoked', revoked ? 'this link was revoked' : 'this link has expired', CloseCode.Revoked);
    }
    this.device = device;
    this.viewer = viewer;
    this.deps.stats.add('handshake:accepted');
    if (!viewer && device.scopes.includes('watch')) {
      this.subscribe(new LatestOnly(SESSION_LIST_ROUTE, this.outbox, updateSubject));
      this.subscribe(new LatestOnly(HOST_ROUTE, this.outbox, updateSubject));
    }
    this.deps.onOpen(this);
  }

  private async request(id: number, method: string, params: unknown): Promise<void> {
    if (!this.device) return;
    // Anyone may hold a link: a viewer that asks for more while it leaves what it was sent unread
    // is cut off (it resumes by sequence number), so no viewer makes the host queue without bound.
    if (this.viewer && this.queued() > HIGH_WATER_BYTES) return this.outbox.cutOff();
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.deps.stats.add('request:busy');
      this.send({ t: 'res', id, error: protocolError('busy', 'too many requests in progress') });
      return;
    }
    this.inFlight++;
    try {
      const viewer = this.viewer;
      const dispatch = viewer ? this.deps.viewers!.dispatch : this.deps.dispatch;
      const result = await dispatch(method, params, {
        device: this.device,
        connection: this,
        ...(viewer ? { viewer } : {}),
      });
      this.send(result.ok ? { t: 'res', id, result: result.value } : { t: 'res', id, error: result.error });
    } finally {
      this.inFlight--;
    }
  }

  private send(message: ChannelMessage): void {
    if (this.closed || !this.channel) return;
    const sent = this.batcher.send(encodeChannelMessage(message));
    if (!sent.ok) {
      // Larger than a frame may be: say so in place of the message, if it was an answer.
      this.deps.stats.add('send:too-large');
      if (message.t === 'res')
        this.send({ t: 'res', id: message.id, error: protocolError('too-large', 'the answer is too large to send') });
    }
  }

  private sendBinary(plain: Uint8Array): void {
    if (this.closed || !this.channel) return;
    if (!this.batcher.send(plain).ok) this.deps.stats.add('send:too-large');
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.closed || this.queued() < LOW_WATER_BYTES) resolve();
        else this.deps.clock.setTimeout(check, DRAIN_POLL_MS);
      };
      check();
    });
  }

  private refuse(reason: HostCounterName, code: number, text: string): void {
    this.deps.stats.add(reason);
    this.transport.close(code, text);
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.helloTimer !== undefined) this.deps.clock.clearTimeout(this.helloTimer);
    for (const subscription of this.subscriptions.values()) subscription.end();
    this.subscriptions.clear();
    this.deps.onClose(this);
  }
}
