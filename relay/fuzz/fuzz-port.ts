import { isSendableCloseCode, RELAY_MAX_CLOSE_REASON_BYTES } from '@tether/shared-protocol';
import { FakePort } from '../src/testing/fake-port.js';

/**
 * The unit tests' FakePort for the relay fuzzer. It keeps nothing it was sent (a run of a million
 * inputs would fill memory): each write goes to `onSent`. Nothing reaches a closed port, and a
 * ping is answered at once. A close is checked the way `ws` checks it, since `ws` throws on a
 * code or reason it cannot send (RFC 6455 §7.4 as `ws` reads it): such a close is a fault the
 * fuzzer reports (`fault`).
 */
export class FuzzPort extends FakePort {
  /** Every write, as it is made. */
  onSent: ((bytes: Uint8Array) => void) | undefined;

  constructor(
    source: string,
    private readonly fault: (what: string) => void,
  ) {
    super(source);
  }

  override send(bytes: Uint8Array, done: () => void): void {
    if (this.isClosed) return done();
    this.complete(done);
    this.onSent?.(bytes);
  }

  override close(code: number, reason: string): void {
    if (!this.closedWith) {
      if (!isSendableCloseCode(code)) this.fault(`closed with code ${code}, which ws refuses to send`);
      if (new TextEncoder().encode(reason).length > RELAY_MAX_CLOSE_REASON_BYTES) {
        this.fault(`closed with a reason of more than ${RELAY_MAX_CLOSE_REASON_BYTES} bytes`);
      }
    }
    super.close(code, reason);
  }

  /** A prompt peer answers a protocol ping at once. */
  override ping(): void {
    if (!this.isClosed) queueMicrotask(() => this.pong());
  }

  override deliver(bytes: Uint8Array, binary = true): void {
    if (!this.isClosed) super.deliver(bytes, binary);
  }
}
