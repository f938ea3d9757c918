import type { CloseInfo, Transport } from '../link/transport.js';

/**
 * Two connected in-memory transports. Messages are delivered asynchronously and in order, like a
 * socket; `close` on either end closes both.
 */
export function memoryPipe(): [MemoryTransport, MemoryTransport] {
  const a = new MemoryTransport();
  const b = new MemoryTransport();
  a.peer = b;
  b.peer = a;
  return [a, b];
}

export class MemoryTransport implements Transport {
  onMessage: ((data: Uint8Array) => void) | null = null;
  onClose: ((info: CloseInfo) => void) | null = null;
  peer: MemoryTransport | undefined;
  closed = false;
  /** Messages this end has sent, for tests that inspect or replay traffic. */
  readonly sent: Uint8Array[] = [];

  send(data: Uint8Array): void {
    if (this.closed) return;
    const copy = data.slice();
    this.sent.push(copy);
    const peer = this.peer;
    queueMicrotask(() => {
      if (peer && !peer.closed) peer.onMessage?.(copy);
    });
  }

  close(code = 1000, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    const peer = this.peer;
    queueMicrotask(() => {
      this.onClose?.({ code, reason });
      if (peer && !peer.closed) {
        peer.closed = true;
        peer.onClose?.({ code, reason });
      }
    });
  }
}
