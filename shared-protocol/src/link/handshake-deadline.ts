import type { Clock, TimerHandle } from '../clock.js';
import type { CloseInfo, Transport } from './transport.js';
import { CloseCode } from '../close-codes.js';
import type { ProtocolError, Result } from '../errors.js';
import { fail } from '../errors.js';

export interface HandshakeDeadlineOptions<T> {
  clock: Clock;
  /** Milliseconds the peer has to answer; past it the handshake fails with `timeout`. */
  timeoutMs: number;
  /** Why it failed when the deadline passed, for the person (`the host did not answer …`). */
  timeoutMessage: string;
  /** What the transport closing during the handshake means. */
  closed: (info: CloseInfo) => ProtocolError;
  /** The close code a failed handshake ends the transport with; Normal unless given. */
  closeCode?: (error: ProtocolError) => number;
  /** Sent once the handlers are in place: the initiator's hello. The responder sends nothing. */
  hello?: Uint8Array;
  /**
   * The peer's message. Its result ends the handshake either way; on success the callee has
   * already taken the transport over (its own message and close handlers).
   */
  receive: (data: Uint8Array) => Result<T>;
}

/**
 * One message each way over a fresh transport, with a deadline: it settles once, with what
 * `receive` made of the peer's message, the close, or `timeout`. A failure closes the transport,
 * so a peer that stalls or lies holds nothing open past the deadline.
 */
export function handshakeWithDeadline<T>(
  transport: Transport,
  options: HandshakeDeadlineOptions<T>,
): Promise<Result<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Result<T>) => {
      if (settled) return;
      settled = true;
      options.clock.clearTimeout(timer);
      if (!result.ok) {
        transport.close(options.closeCode?.(result.error) ?? CloseCode.Normal, result.error.code);
      }
      resolve(result);
    };
    const timer: TimerHandle = options.clock.setTimeout(
      () => settle(fail('timeout', options.timeoutMessage)),
      options.timeoutMs,
    );
    transport.onClose = (info) => settle({ ok: false, error: options.closed(info) });
    transport.onMessage = (data) => {
      if (!settled) settle(options.receive(data));
    };
    if (options.hello) transport.send(options.hello);
  });
}
