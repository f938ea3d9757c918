import type { Clock, TimerHandle } from '@tether/shared-protocol';
import { CloseCode, RelayCloseCode, TokenBucket } from '@tether/shared-protocol';
import type { Census, PendingConn } from './census.js';
import type { ConnKind, DropReason, RefusalReason, RelayMetrics } from './metrics.js';
import type { ByteBudget, OutboxLimits, OutboxVerdict } from './outbox.js';
import { Outbox } from './outbox.js';
import type { PeerPort, PortHandler } from './peer-port.js';

/** What every connection of one kind shares: made once per node, never per connection. */
export interface PeerConfig {
  kind: ConnKind;
  census: Census;
  clock: Clock;
  metrics: RelayMetrics;
  budget: ByteBudget;
  outbox: OutboxLimits;
  bytesPerSecond: number;
  burstBytes: number;
  authDeadlineMs: number;
  preauthMaxBytes: number;
  pingIntervalMs: number;
  peerTimeoutMs: number;
  closeGraceMs: number;
}

/** The connection a Peer carries (a host link or a device), told what its socket does. */
export interface PeerOwner {
  /** Sends one ping: a WebSocket ping to a device (`port.ping()`), a `ping` frame to a host. */
  sendPing(): void;
  received(bytes: Uint8Array): void;
  /** Called once, when the connection ends, whoever ended it. */
  ended(code: number, reason: string): void;
}

/**
 * What every relay connection shares, host link or device: the pre-authentication deadline and
 * size cap, the outbox, the inbound byte-rate limit (the socket is paused while its bucket is in
 * debt), liveness (pings every interval; a peer not heard from within the timeout is closed), and
 * closing exactly once with a reason.
 *
 * An idle connection is most of what a node holds (thousands of them), so a Peer keeps nothing per
 * connection that could be shared: the config is the node's, the owner and the port are objects
 * rather than closures, and one timer serves the auth deadline, then pings and silence.
 */
export class Peer implements PortHandler, PendingConn {
  readonly outbox: Outbox;
  private readonly bucket: TokenBucket;
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** The auth deadline before authentication; after it, the next ping or silence check. */
  private timer: TimerHandle | undefined;
  private resumeTimer: TimerHandle | undefined;
  private graceTimer: TimerHandle | undefined;
  private lastHeard: number;
  private nextPingAt = 0;
  private holds = 0;
  private rateHeld = false;
  private authenticated = false;

  constructor(
    private readonly o: PeerConfig,
    private readonly port: PeerPort,
    private readonly owner: PeerOwner,
  ) {
    this.outbox = new Outbox(o.outbox, o.budget, port);
    this.bucket = new TokenBucket(o.clock, o.bytesPerSecond, o.burstBytes);
    this.lastHeard = o.clock.now();
    port.setMaxMessage(o.preauthMaxBytes);
    port.handler = this;
    this.timer = o.clock.setTimeout(() => this.refuse(RelayCloseCode.AuthTimeout, 'auth-timeout'), o.authDeadlineMs);
    o.census.opened(this, port.source);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  get isAuthenticated(): boolean {
    return this.authenticated;
  }

  get source(): string {
    return this.port.source;
  }

  /** The first message checked out: lift the size cap to `maxMessage` and start liveness checks. */
  authenticate(maxMessage: number): void {
    if (this.state !== 'open' || this.authenticated) return;
    this.authenticated = true;
    this.o.census.authenticated(this);
    this.o.clock.clearTimeout(this.timer!);
    this.port.setMaxMessage(maxMessage);
    this.lastHeard = this.o.clock.now();
    this.nextPingAt = this.lastHeard + this.o.pingIntervalMs;
    this.armLiveness();
  }

  send(bytes: Uint8Array, owner?: number): OutboxVerdict {
    if (this.state !== 'open') return 'closed';
    return this.outbox.push(bytes, owner);
  }

  /** Stops reading until `release` (a device being attached to its host). */
  hold(): void {
    if (this.holds++ === 0 && !this.rateHeld) this.port.pause();
  }

  release(): void {
    if (this.holds > 0 && --this.holds === 0 && !this.rateHeld && this.state === 'open') this.port.resume();
  }

  evicted(): void {
    this.refuse(CloseCode.Busy, 'pending-evicted');
  }

  /** Refuses a connection that has not authenticated: counted as a refusal, closed cleanly. */
  refuse(code: number, reason: RefusalReason): void {
    if (this.state !== 'open') return;
    this.o.metrics.refuse(reason);
    this.close(code, reason);
  }

  /** Closes with `code` and `reason`; counted under `drop` when the relay ends it for a fault. */
  close(code: number, reason: string, drop?: DropReason): void {
    if (this.state !== 'open') return;
    if (drop) this.o.metrics.drop(drop);
    this.state = 'closing';
    this.stopTimers();
    // A paused socket could not read the peer's half of the close handshake.
    this.port.resume();
    this.port.close(code, reason);
    this.graceTimer = this.o.clock.setTimeout(() => this.port.terminate(), this.o.closeGraceMs);
    this.owner.ended(code, reason);
  }

  /** Ends the connection at once, without a close handshake (node shutdown, crash tests). */
  terminate(code: number, reason: string, drop?: DropReason): void {
    if (this.state === 'closed') return;
    if (this.state === 'open' && drop) this.o.metrics.drop(drop);
    const notify = this.state === 'open';
    this.state = 'closing';
    this.stopTimers();
    this.port.terminate();
    if (notify) this.owner.ended(code, reason);
  }

  portMessage(bytes: Uint8Array, binary: boolean): void {
    if (this.state !== 'open') return;
    this.lastHeard = this.o.clock.now();
    if (!binary) {
      if (this.authenticated) this.close(CloseCode.ProtocolError, 'text-message', 'text-message');
      else this.refuse(CloseCode.ProtocolError, 'text-message');
      return;
    }
    if (!this.authenticated && bytes.length > this.o.preauthMaxBytes) {
      this.refuse(RelayCloseCode.TooLarge, 'preauth-too-large');
      return;
    }
    const wait = this.bucket.take(bytes.length);
    if (wait > 0 && !this.rateHeld) {
      this.rateHeld = true;
      this.o.metrics.throttled(this.o.kind);
      if (this.holds === 0) this.port.pause();
      this.resumeTimer = this.o.clock.setTimeout(() => {
        this.rateHeld = false;
        if (this.holds === 0 && this.state === 'open') this.port.resume();
      }, wait);
    }
    this.owner.received(bytes);
  }

  portPong(): void {
    this.lastHeard = this.o.clock.now();
  }

  portClosed(code: number, reason: string): void {
    if (this.state === 'closed') return;
    const notify = this.state === 'open';
    this.state = 'closed';
    this.o.census.closed(this);
    this.stopTimers();
    if (this.graceTimer) this.o.clock.clearTimeout(this.graceTimer);
    this.outbox.close();
    if (notify) {
      // The socket closed before the relay closed it: 1009 is the parser refusing a message over
      // the cap (before authentication, or over a frame after); anything else is the peer leaving.
      if (code === RelayCloseCode.TooLarge) {
        if (this.authenticated) this.o.metrics.drop('frame-too-large');
        else this.o.metrics.refuse('preauth-too-large');
      }
      this.owner.ended(code, reason);
    }
  }

  /**
   * One timer for liveness: it fires at the next ping or at the silence deadline, whichever is
   * first. A peer heard from since the timer was set has a later deadline, so a check that finds
   * it alive sets the timer again rather than closing it.
   */
  private armLiveness(): void {
    const deadline = this.lastHeard + this.o.peerTimeoutMs;
    const at = Math.min(this.nextPingAt, deadline);
    this.timer = this.o.clock.setTimeout(() => this.liveness(), Math.max(0, at - this.o.clock.now()));
  }

  private liveness(): void {
    if (this.state !== 'open') return;
    const now = this.o.clock.now();
    if (now - this.lastHeard >= this.o.peerTimeoutMs) {
      return this.close(CloseCode.PingTimeout, 'ping-timeout', 'ping-timeout');
    }
    if (now >= this.nextPingAt) {
      this.owner.sendPing();
      this.nextPingAt = now + this.o.pingIntervalMs;
    }
    this.armLiveness();
  }

  private stopTimers(): void {
    if (this.timer) this.o.clock.clearTimeout(this.timer);
    if (this.resumeTimer) this.o.clock.clearTimeout(this.resumeTimer);
    this.timer = undefined;
    this.resumeTimer = undefined;
  }
}
