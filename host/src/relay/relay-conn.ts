import type { CloseInfo } from '@tether/shared-protocol';
import type { GatewayTransport, SharedPath } from '../gateway/gateway-transport.js';

/** What a device connection needs of the link it rides on. */
export interface ConnLink {
  /** Writes the connection's bytes as a `data` frame; counts them in `conn.queued` until written. */
  sendData(conn: RelayConn, payload: Uint8Array): void;
  /** Tells the relay the connection ended (a `close` frame) and forgets it. */
  endConn(conn: RelayConn, code: number, reason: string): void;
  /** The link's bounds, shared by every connection on it. */
  readonly path: SharedPath;
}

/**
 * One device connection through the relay, as the device gateway sees it: a GatewayTransport like
 * a WebSocket from the LAN listener. What the gateway sends goes out as `data` frames on the link;
 * `bufferedAmount` is what this device has queued on the link and not yet written, so the
 * gateway's subscriptions pace themselves by it as they would by a socket of their own.
 */
export class RelayConn implements GatewayTransport {
  onMessage: ((data: Uint8Array) => void) | null = null;
  onClose: ((info: CloseInfo) => void) | null = null;
  /** Bytes handed to the link for this connection and not yet written to the network. */
  queued = 0;
  private ended = false;

  constructor(
    readonly connId: number,
    readonly deviceId: string,
    readonly remoteAddress: string,
    private readonly link: ConnLink,
  ) {}

  get isClosed(): boolean {
    return this.ended;
  }

  get path(): SharedPath {
    return this.link.path;
  }

  send(data: Uint8Array): void {
    if (!this.ended) this.link.sendData(this, data);
  }

  /** The gateway ends the connection: the relay closes the device's socket with this code. */
  close(code = 1000, reason = ''): void {
    if (this.ended) return;
    this.link.endConn(this, code, reason);
    this.finish({ code, reason });
  }

  bufferedAmount(): number {
    return this.queued;
  }

  /** Bytes from the device. */
  deliver(payload: Uint8Array): void {
    if (!this.ended) this.onMessage?.(payload);
  }

  /** The connection ended on the relay's side (the device went, or the link did). */
  finish(info: CloseInfo): void {
    if (this.ended) return;
    this.ended = true;
    this.onMessage = null;
    const onClose = this.onClose;
    this.onClose = null;
    // Asynchronously, as a socket reports a close: the gateway may be inside `send` right now.
    queueMicrotask(() => onClose?.(info));
  }
}
