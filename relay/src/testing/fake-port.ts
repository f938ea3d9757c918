import type { RelayFrame } from '@tether/shared-protocol';
import { decodeRelayFrame } from '@tether/shared-protocol';
import type { PeerPort, PortHandler } from '../peer-port.js';

/**
 * An in-memory PeerPort. Writes complete at once unless `slow` is set, in which case their
 * callbacks wait for `flush()` (a peer that does not read). `close` completes at once (a prompt
 * peer) and both ends see the code.
 */
export class FakePort implements PeerPort {
  sent: Uint8Array[] = [];
  slow = false;
  paused = false;
  pings = 0;
  maxMessage = 0;
  closedWith: { code: number; reason: string } | undefined;
  terminated = false;
  handler: PortHandler | null = null;
  private waiting: (() => void)[] = [];
  private ended = false;

  constructor(readonly source = '203.0.113.7') {}

  send(bytes: Uint8Array, done: () => void): void {
    if (this.ended) return done();
    this.sent.push(bytes);
    this.complete(done);
  }

  /** Completes a write now, or once the client reads (`flush`) while `slow`. */
  protected complete(done: () => void): void {
    if (this.slow) this.waiting.push(done);
    else done();
  }

  close(code: number, reason: string): void {
    if (this.closedWith) return;
    this.closedWith = { code, reason };
    this.end(code, reason);
  }

  terminate(): void {
    this.terminated = true;
    this.end(1006, '');
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  ping(): void {
    this.pings++;
  }

  setMaxMessage(bytes: number): void {
    this.maxMessage = bytes;
  }

  /** A message from the client. */
  deliver(bytes: Uint8Array, binary = true): void {
    this.handler?.portMessage(bytes, binary);
  }

  /** The client answers a ping. */
  pong(): void {
    this.handler?.portPong();
  }

  /** The client closes its side. */
  hangUp(code = 1000, reason = ''): void {
    this.end(code, reason);
  }

  /** The client reads everything written so far. */
  flush(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const done of waiting) done();
  }

  /** Everything written, decoded as relay frames (for host links). */
  frames(): RelayFrame[] {
    return this.sent.map((bytes) => {
      const r = decodeRelayFrame(bytes);
      if (!r.ok) throw new Error(`not a relay frame: ${r.error.message}`);
      return r.value;
    });
  }

  framesOf<T extends RelayFrame['type']>(type: T): Extract<RelayFrame, { type: T }>[] {
    return this.frames().filter((f): f is Extract<RelayFrame, { type: T }> => f.type === type);
  }

  get isClosed(): boolean {
    return this.ended;
  }

  private end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.flush();
    this.handler?.portClosed(code, reason);
  }
}
