import type { PeerPort, PortHandler } from '../src/peer-port.js';

/** Close codes `ws` accepts in `close()` (it throws on any other): RFC 6455 §7.4 as `ws` reads it. */
function wsAcceptsCode(code: number): boolean {
  return (
    Number.isInteger(code) &&
    ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
      (code >= 3000 && code <= 4999))
  );
}

/** Bytes of a close reason `ws` accepts: what a close frame carries after its 2-byte code. */
const WS_MAX_REASON_BYTES = 123;

/**
 * An in-memory PeerPort for the relay fuzzer. Unlike the unit tests' FakePort it keeps nothing it
 * was sent (a run of a million inputs would fill memory): each write goes to `onSent` and is done
 * at once, unless `slow` holds its callback until `flush()` (a peer that stops reading). A close
 * is checked the way `ws` checks it, since `ws` throws on a code or reason it cannot send: such a
 * close is a fault the fuzzer reports (`fault`).
 */
export class FuzzPort implements PeerPort {
  slow = false;
  paused = false;
  closedWith: { code: number; reason: string } | undefined;
  handler: PortHandler | null = null;
  /** Every write, as it is made. */
  onSent: ((bytes: Uint8Array) => void) | undefined;
  /** Writes waiting for `flush` while `slow`. */
  private waiting: (() => void)[] = [];
  private ended = false;

  constructor(
    readonly source: string,
    private readonly fault: (what: string) => void,
  ) {}

  get isClosed(): boolean {
    return this.ended;
  }

  get heldWrites(): number {
    return this.waiting.length;
  }

  send(bytes: Uint8Array, done: () => void): void {
    if (this.ended) return done();
    if (this.slow) this.waiting.push(done);
    else done();
    this.onSent?.(bytes);
  }

  close(code: number, reason: string): void {
    if (this.closedWith) return;
    if (!wsAcceptsCode(code)) this.fault(`closed with code ${code}, which ws refuses to send`);
    if (new TextEncoder().encode(reason).length > WS_MAX_REASON_BYTES) {
      this.fault(`closed with a reason of more than ${WS_MAX_REASON_BYTES} bytes`);
    }
    this.closedWith = { code, reason };
    this.end(code, reason);
  }

  terminate(): void {
    this.end(1006, '');
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  /** A prompt peer answers a protocol ping at once. */
  ping(): void {
    if (!this.ended) queueMicrotask(() => this.handler?.portPong());
  }

  setMaxMessage(): void {
    // The relay also checks sizes itself after a message arrives; the fuzzer sends within bounds.
  }

  /** A message from the client. */
  deliver(bytes: Uint8Array, binary = true): void {
    if (!this.ended) this.handler?.portMessage(bytes, binary);
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

  private end(code: number, reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.flush();
    this.handler?.portClosed(code, reason);
  }
}
