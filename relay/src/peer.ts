import type { Clock, TimerHandle } from '@tether/shared-protocol';
import { CloseCode, RelayCloseCode } from '@tether/shared-protocol';
import type { Census } from './census.js';
import type { ConnKind, DropReason, RefusalReason, RelayMetrics } from './metrics.js';
import type { ByteBudget, OutboxLimits, OutboxVerdict } from './outbox.js';
import { Outbox } from './outbox.js';
import type { PeerPort } from './peer-port.js';
import { TokenBucket } from './token-bucket.js';

export interface PeerOptions {
  kind: ConnKind;
  port: PeerPort;
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
  /** Sends one ping: a WebSocket ping to a device, a `ping` frame to a host. */
  ping: () => void;
  onMessage: (bytes: Uint8Array) => void;
  /** Called once, when the connection ends, whoever ended it. */
  onClosed: (code: number, reason: string) => void;
}

/**
 * What every relay connection shares, host link or device: the pre-authentication deadline and
 * size cap, the outbox, the inbound byte-rate limit (the socket is paused while its bucket is in
 * debt), liveness (pings every interval; a peer not heard from within the timeout is closed), and
 * closing exactly once with a reason.
 */
export class Peer {
  readonly outbox: Outbox;
  private readonly bucket: TokenBucket;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private authTimer: TimerHandle | undefined;
  private pingTimer: TimerHandle | undefined;
  private deadTimer: TimerHandle | undefined;
  private resumeTimer: TimerHandle | undefined;
  private graceTimer: TimerHandle | undefined;
  private lastHeard: number;
  private holds = 0;
  private rateHeld = false;
  private authenticated = false;

  constructor(private readonly o: PeerOptions) {
    const port = o.port;
    this.outbox = new Outbox(o.outbox, o.budget, (bytes, done) => port.send(bytes, done));
    this.bucket = new TokenBucket(o.clock, o.bytesPerSecond, o.burstBytes);
    this.lastHeard = o.clock.now();
    o.census.opened();
    port.setMaxMessage(o.preauthMaxBytes);
    port.onMessage = (bytes, binary) => this.receive(bytes, binary);
    port.onPong = () => (this.lastHeard = o.clock.now());
    port.onClose = (code, reason) => this.finished(code, reason);
    this.authTimer = o.clock.setTimeout(
      () => this.refuse(RelayCloseCode.AuthTimeout, 'auth-timeout'),
      o.authDeadlineMs,
    );
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  get isAuthenticated(): boolean {
    return this.authenticated;
  }

  get source(): string {
    return this.o.port.source;
  }

  /** The first message checked out: lift the size cap to `maxMessage` and start liveness checks. */
  authenticate(maxMessage: number): void {
    if (this.state !== 'open' || this.authenticated) return;
    this.authenticated = true;
    this.o.census.authenticated();
    this.o.clock.clearTimeout(this.authTimer!);
    this.o.port.setMaxMessage(maxMessage);
    this.lastHeard = this.o.clock.now();
    this.schedulePing();
    this.armDeadTimer(this.o.peerTimeoutMs);
  }

  send(bytes: Uint8Array, owner?: number): OutboxVerdict {
    if (this.state !== 'open') return 'closed';
    return this.outbox.push(bytes, owner);
  }

  /** Stops reading until `release` (a device being attached to its host). */
  hold(): void {
    if (this.holds++ === 0 && !this.rateHeld) this.o.port.pause();
  }

  release(): void {
    if (this.holds > 0 && --this.holds === 0 && !this.rateHeld && this.state === 'open') this.o.port.resume();
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
    this.o.port.resume();
    this.o.port.close(code, reason);
    this.graceTimer = this.o.clock.setTimeout(() => this.o.port.terminate(), this.o.closeGraceMs);
    this.o.onClosed(code, reason);
  }

  /** Ends the connection at once, without a close handshake (node shutdown, crash tests). */
  terminate(code: number, reason: string, drop?: DropReason): void {
    if (this.state === 'closed') return;
    if (this.state === 'open' && drop) this.o.metrics.drop(drop);
    const notify = this.state === 'open';
    this.state = 'closing';
    this.stopTimers();
    this.o.port.terminate();
    if (notify) this.o.onClosed(code, reason);
  }

  private receive(bytes: Uint8Array, binary: boolean): void {
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
      if (this.holds === 0) this.o.port.pause();
      this.resumeTimer = this.o.clock.setTimeout(() => {
        this.rateHeld = false;
        if (this.holds === 0 && this.state === 'open') this.o.port.resume();
      }, wait);
    }
    this.o.onMessage(bytes);
  }

  private finished(code: number, reason: string): void {
    if (this.state === 'closed') return;
    const notify = this.state === 'open';
    this.state = 'closed';
    this.o.census.closed(this.authenticated);
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
      this.o.onClosed(code, reason);
    }
  }

  private schedulePing(): void {
    this.pingTimer = this.o.clock.setTimeout(() => {
      if (this.state !== 'open') return;
      this.o.ping();
      this.schedulePing();
    }, this.o.pingIntervalMs);
  }

  private armDeadTimer(ms: number): void {
    this.deadTimer = this.o.clock.setTimeout(() => {
      if (this.state !== 'open') return;
      const quiet = this.o.clock.now() - this.lastHeard;
      if (quiet >= this.o.peerTimeoutMs) this.close(CloseCode.PingTimeout, 'ping-timeout', 'ping-timeout');
      else this.armDeadTimer(this.o.peerTimeoutMs - quiet);
    }, ms);
  }

  private stopTimers(): void {
    for (const t of [this.authTimer, this.pingTimer, this.deadTimer, this.resumeTimer]) {
      if (t) this.o.clock.clearTimeout(t);
    }
  }
}
