import type { CloseInfo, Transport } from '@tether/shared-protocol';
import { isSendableCloseCode, RELAY_MAX_CLOSE_REASON_BYTES } from '@tether/shared-protocol';

/** Whether `ws` sends a close with `code` and `reason` (it throws on any other): RFC 6455 §7.4. */
export function wsAcceptsClose(code: number, reason: string): boolean {
  return isSendableCloseCode(code) && new TextEncoder().encode(reason).length <= RELAY_MAX_CLOSE_REASON_BYTES;
}

/**
 * Two ends of an in-memory socket, as a WebSocket delivers: in order, on a later turn. Unlike the
 * unit tests' memory pipe it keeps no history (a long run would fill memory), and a close is
 * checked the way `ws` checks it, since `ws` throws on a code or reason it cannot send.
 */
export class FuzzPipeEnd implements Transport {
  onMessage: ((data: Uint8Array) => void) | null = null;
  onClose: ((info: CloseInfo) => void) | null = null;
  closed = false;
  closedWith: CloseInfo | undefined;
  peer!: FuzzPipeEnd;

  constructor(private readonly fault: (what: string) => void) {}

  send(data: Uint8Array): void {
    if (this.closed) return;
    const copy = data.slice();
    const peer = this.peer;
    queueMicrotask(() => {
      if (!peer.closed) peer.onMessage?.(copy);
    });
  }

  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    if (!wsAcceptsClose(code, reason)) this.fault(`a link was closed with ${code} "${reason}", which ws refuses`);
    this.closed = true;
    this.closedWith = { code, reason };
    const peer = this.peer;
    queueMicrotask(() => {
      this.onClose?.({ code, reason });
      if (!peer.closed) {
        peer.closed = true;
        peer.closedWith = { code, reason };
        peer.onClose?.({ code, reason });
      }
    });
  }
}

export function fuzzPipe(fault: (what: string) => void): [FuzzPipeEnd, FuzzPipeEnd] {
  const a = new FuzzPipeEnd(fault);
  const b = new FuzzPipeEnd(fault);
  a.peer = b;
  b.peer = a;
  return [a, b];
}
