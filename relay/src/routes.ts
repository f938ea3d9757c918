import type { Result } from '@tether/shared-protocol';
import type { RequestKind } from './metrics.js';

/**
 * The seams between a device's connection and its host's link. A device connection sends into an
 * Upstream and receives through its Downstream; either end may be on this node or, through the
 * cluster, on another. Each side enforces its own bounds and closes whoever must go: `send` never
 * reports back, and `close` is idempotent and never echoes to the side that called it.
 */
export interface Upstream {
  /** Device bytes toward the host. */
  send(bytes: Uint8Array): void;
  /** The device side ended: tell the host. */
  close(code: number, reason: string): void;
}

export interface Downstream {
  /** Host bytes toward the device. */
  send(bytes: Uint8Array): void;
  /** The host side ended (or the relay closed the stream): close the device. */
  close(code: number, reason: string): void;
}

export interface RelayReply {
  status: number;
  body: Uint8Array;
}

/** What an authenticated host link offers, wherever the device or caller is. */
export interface HostEndpoint {
  readonly hostId: string;
  /** Opens a device connection on the link; `busy` when the host has its maximum. */
  openConn(downstream: Downstream, deviceId: string, source: string): Result<Upstream>;
  /** Forwards a pair request or one-shot call and waits for the host's reply. */
  request(kind: RequestKind, source: string, body: Uint8Array, signal?: AbortSignal): Promise<Result<RelayReply>>;
}

/** Reaches a host by its id wherever its link is: on this node, or on another through the cluster. */
export interface HostRoutes {
  attach(downstream: Downstream, hostId: string, deviceId: string, source: string): Promise<Result<Upstream>>;
  /** Forwards a pair request or one-shot call to the host and waits for its reply. */
  request(
    kind: RequestKind,
    hostId: string,
    source: string,
    body: Uint8Array,
    signal?: AbortSignal,
  ): Promise<Result<RelayReply>>;
}

/** Bytes of a close reason the relay passes on: what a WebSocket close frame can carry. */
const MAX_REASON_BYTES = 123;
const encoder = new TextEncoder();

/** Cuts a close reason to what a close frame carries, on a character boundary. */
export function clipReason(reason: string): string {
  if (encoder.encode(reason).length <= MAX_REASON_BYTES) return reason;
  let out = '';
  for (const ch of reason) {
    if (encoder.encode(out + ch).length > MAX_REASON_BYTES) break;
    out += ch;
  }
  return out;
}
