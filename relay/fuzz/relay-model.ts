import type { HostIdentity, RelayFrame } from '@tether/shared-protocol';
import { decodeRelayFrame, encodeRelayFrame } from '@tether/shared-protocol';
import type { DeviceConn } from '../src/device-conn.js';
import type { HostLink } from '../src/host-link.js';
import type { FuzzPort } from './fuzz-port.js';

/**
 * What the relay fuzzer expects of the relay, kept beside it: which device each host was told of,
 * which bytes each side sent that the other may receive, and which HTTP requests are waiting for
 * which host. Every frame the relay writes to a host and every message it writes to a device is
 * checked against it as it is written, so a frame delivered to the wrong host or device, or bytes
 * nobody sent, are caught at once.
 */

/** Bytes sent and not yet received, as a multiset (the relay forwards each exactly once). */
export class Expected {
  private readonly counts = new Map<string, number>();

  add(bytes: Uint8Array): void {
    const key = hex(bytes);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Takes one copy of `bytes`; false when none was expected. */
  take(bytes: Uint8Array): boolean {
    const key = hex(bytes);
    const n = this.counts.get(key);
    if (!n) return false;
    if (n === 1) this.counts.delete(key);
    else this.counts.set(key, n - 1);
    return true;
  }

  get size(): number {
    return this.counts.size;
  }
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

export interface FuzzDevice {
  host: FuzzHost;
  port: FuzzPort;
  conn: DeviceConn;
  deviceId: string;
  /** Set once the host was told of it (`open`). */
  connId: number | undefined;
  /** Bytes its host sent it, not yet received. */
  fromHost: Expected;
  /** Bytes it sent its host, not yet received there. */
  toHost: Expected;
}

export interface FuzzHost {
  identity: HostIdentity;
  port: FuzzPort;
  link: HostLink;
  /** The host's view: each connection the relay opened on its link. */
  conns: Map<number, FuzzDevice>;
  /** Devices connecting or connected to this host, whether or not they got through. */
  devices: FuzzDevice[];
}

/** An HTTP request forwarded to a host, and the host's answer once it gave one. */
export interface InFlight {
  kind: 'pair' | 'call';
  hostId: string;
  body: string;
  reached: boolean;
  reply: { status: number; body: Uint8Array } | undefined;
}

/** A connect request being presented: whether the relay may let it through. */
export interface Attempt {
  device: FuzzDevice;
  /** The host the device asked for (by URL). */
  hostId: string;
  /** The ticket and key as the host issued them, and whether they are good for that host now. */
  ticket: Uint8Array;
  key: Uint8Array;
  valid: boolean;
  /** What the device really sent. */
  sent: Uint8Array;
}

/** Whether `attempt` should open: it names its host, and what was sent says what was issued. */
export function mayOpen(attempt: Attempt): boolean {
  if (!attempt.valid) return false;
  const f = decodeRelayFrame(attempt.sent);
  return (
    f.ok &&
    f.value.type === 'connect' &&
    sameBytes(f.value.ticket, attempt.ticket) &&
    sameBytes(f.value.hostSignPublicKey, attempt.key)
  );
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function frame(f: RelayFrame): Uint8Array {
  const r = encodeRelayFrame(f);
  if (!r.ok) throw new Error(`the fuzzer built a bad frame: ${r.error.message}`);
  return r.value;
}
