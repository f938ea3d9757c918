import type { ErrorCode, Result } from '@tether/shared-protocol';
import {
  RELAY_MAX_CALL_BODY,
  RELAY_MAX_PAYLOAD,
  RELAY_MAX_REPLY_BODY,
  fail,
  fromBase64UrlExact,
  isErrorCode,
  isSendableCloseCode,
  ok,
  toBase64Url,
  utf8Decode,
  utf8Encode,
} from '@tether/shared-protocol';
import type { RequestKind } from '../metrics.js';

/**
 * Messages between relay nodes, over Redis pub/sub. Internal to the relay (no host or app reads
 * them), but decoded as carefully as anything from a socket: Redis is shared infrastructure.
 *
 *   message = version(1) | type(1) | fromLen(1) | from (node id) | body
 *
 * A stream is one device connection whose device is on one node (which names it with a streamId)
 * and whose host link is on another. Every message of a stream travels over one publisher
 * connection to one channel, so Redis keeps them in order.
 *
 * Version 2 gives a claim the host's generation (version 1's claim had none, and two claims that
 * crossed made both nodes yield). Version 3 names hosts in Redis's keys by a hash of their id
 * (redis-backplane.ts), so nodes of version 2 would not find version 3's hosts: nodes of different
 * versions do not read each other's messages.
 */
export const CLUSTER_VERSION = 3;

export type ClusterMessage =
  | { type: 'open'; streamId: number; hostId: string; deviceId: string; source: string }
  | { type: 'opened'; streamId: number }
  | { type: 'to-host'; streamId: number; payload: Uint8Array }
  | { type: 'to-device'; streamId: number; payload: Uint8Array }
  | { type: 'device-closed'; streamId: number; code: number; reason: string }
  | { type: 'host-closed'; streamId: number; code: number; reason: string }
  | { type: 'request'; reqId: number; kind: RequestKind; hostId: string; source: string; body: Uint8Array }
  | { type: 'reply'; reqId: number; status: number; body: Uint8Array }
  | { type: 'failure'; reqId: number; code: ErrorCode }
  /** The node took `hostId`'s link at `gen`, the host's generation in Redis (backplane.ts). */
  | { type: 'claim'; hostId: string; gen: number };

const TYPES = [
  'open',
  'opened',
  'to-host',
  'to-device',
  'device-closed',
  'host-closed',
  'request',
  'reply',
  'failure',
  'claim',
] as const;
const CODE = Object.fromEntries(TYPES.map((t, i) => [t, i + 1])) as Record<ClusterMessage['type'], number>;

const MAX_NODE_ID = 64;
const MAX_TEXT = 123;

class Writer {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  bytes(b: Uint8Array): this {
    this.parts.push(b);
    this.size += b.length;
    return this;
  }

  u8(v: number): this {
    return this.bytes(Uint8Array.of(v));
  }

  u16(v: number): this {
    return this.bytes(Uint8Array.of(v >>> 8, v & 0xff));
  }

  u32(v: number): this {
    return this.bytes(Uint8Array.of(v >>> 24, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff));
  }

  /** Length-prefixed (one byte) UTF-8. */
  text(s: string): this {
    const b = utf8Encode(s);
    return this.u8(b.length).bytes(b);
  }

  done(): Uint8Array {
    const out = new Uint8Array(this.size);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

/** The sending node's id as UTF-8, kept for the next message: a node sends under one id. */
let lastFrom = '';
let lastFromBytes: Uint8Array = new Uint8Array(0);

/**
 * A stream's data, the messages sent for every frame: one allocation, the payload copied once,
 * the same bytes the general writer makes.
 */
function encodeData(from: string, type: 'to-host' | 'to-device', streamId: number, payload: Uint8Array): Uint8Array {
  if (from !== lastFrom) {
    lastFromBytes = utf8Encode(from);
    lastFrom = from;
  }
  const id = lastFromBytes;
  const out = new Uint8Array(3 + id.length + 4 + payload.length);
  out[0] = CLUSTER_VERSION;
  out[1] = CODE[type];
  out[2] = id.length & 0xff;
  out.set(id, 3);
  const o = 3 + id.length;
  out[o] = streamId >>> 24;
  out[o + 1] = (streamId >>> 16) & 0xff;
  out[o + 2] = (streamId >>> 8) & 0xff;
  out[o + 3] = streamId & 0xff;
  out.set(payload, o + 4);
  return out;
}

export function encodeClusterMessage(from: string, m: ClusterMessage): Uint8Array {
  if (m.type === 'to-host' || m.type === 'to-device') return encodeData(from, m.type, m.streamId, m.payload);
  const w = new Writer().u8(CLUSTER_VERSION).u8(CODE[m.type]).text(from);
  switch (m.type) {
    case 'open':
      return w.u32(m.streamId).bytes(id16(m.hostId)).bytes(id16(m.deviceId)).text(m.source).done();
    case 'opened':
      return w.u32(m.streamId).done();
    case 'device-closed':
    case 'host-closed':
      return w.u32(m.streamId).u16(m.code).bytes(utf8Encode(m.reason)).done();
    case 'request':
      return w
        .u32(m.reqId)
        .u8(m.kind === 'pair' ? 1 : 2)
        .bytes(id16(m.hostId))
        .text(m.source)
        .bytes(m.body)
        .done();
    case 'reply':
      return w.u32(m.reqId).u16(m.status).bytes(m.body).done();
    case 'failure':
      return w.u32(m.reqId).bytes(utf8Encode(m.code)).done();
    case 'claim':
      return w
        .bytes(id16(m.hostId))
        .u32(Math.floor(m.gen / 2 ** 32))
        .u32(m.gen >>> 0)
        .done();
  }
}

function id16(id: string): Uint8Array {
  return fromBase64UrlExact(id, 16) ?? new Uint8Array(16);
}

class Reader {
  private o = 0;
  constructor(private readonly b: Uint8Array) {}
  get left(): number {
    return this.b.length - this.o;
  }
  u8(): number | undefined {
    return this.o < this.b.length ? this.b[this.o++] : undefined;
  }
  u16(): number | undefined {
    const hi = this.u8();
    const lo = this.u8();
    return hi === undefined || lo === undefined ? undefined : (hi << 8) | lo;
  }
  u32(): number | undefined {
    if (this.left < 4) return undefined;
    const b = this.b;
    const v = b[this.o]! * 0x1000000 + ((b[this.o + 1]! << 16) | (b[this.o + 2]! << 8) | b[this.o + 3]!);
    this.o += 4;
    return v;
  }
  take(n: number): Uint8Array | undefined {
    if (this.left < n) return undefined;
    const out = this.b.subarray(this.o, this.o + n);
    this.o += n;
    return out;
  }
  rest(): Uint8Array {
    return this.take(this.left)!;
  }
  text(max: number): string | undefined {
    const n = this.u8();
    if (n === undefined || n > max) return undefined;
    const raw = this.take(n);
    return raw && utf8Decode(raw);
  }
  id(): string | undefined {
    const raw = this.take(16);
    return raw && toBase64Url(raw);
  }
}

export interface DecodedClusterMessage {
  from: string;
  message: ClusterMessage;
}

/** Decodes one cluster message; never throws. */
export function decodeClusterMessage(bytes: Uint8Array): Result<DecodedClusterMessage> {
  const r = new Reader(bytes);
  const version = r.u8();
  const code = r.u8();
  const from = r.text(MAX_NODE_ID);
  if (version !== CLUSTER_VERSION || code === undefined || !from) return fail('malformed', 'not a cluster message');
  const type = TYPES[code - 1];
  const bad = fail('malformed', `malformed cluster ${type ?? 'message'}`);
  const m = ((): ClusterMessage | undefined => {
    switch (type) {
      case 'open': {
        const streamId = r.u32();
        const hostId = r.id();
        const deviceId = r.id();
        const source = r.text(64);
        return streamId === undefined || !hostId || !deviceId || source === undefined
          ? undefined
          : { type, streamId, hostId, deviceId, source };
      }
      case 'opened': {
        const streamId = r.u32();
        return streamId === undefined ? undefined : { type, streamId };
      }
      case 'to-host':
      case 'to-device': {
        const streamId = r.u32();
        const payload = r.rest();
        return streamId === undefined || payload.length > RELAY_MAX_PAYLOAD ? undefined : { type, streamId, payload };
      }
      case 'device-closed':
      case 'host-closed': {
        const streamId = r.u32();
        const closeCode = r.u16();
        const raw = r.rest();
        const reason = raw.length <= MAX_TEXT ? utf8Decode(raw) : undefined;
        return streamId === undefined ||
          closeCode === undefined ||
          !isSendableCloseCode(closeCode) ||
          reason === undefined
          ? undefined
          : { type, streamId, code: closeCode, reason };
      }
      case 'request': {
        const reqId = r.u32();
        const kind = r.u8();
        const hostId = r.id();
        const source = r.text(64);
        const body = r.rest();
        return reqId === undefined ||
          (kind !== 1 && kind !== 2) ||
          !hostId ||
          source === undefined ||
          body.length > RELAY_MAX_CALL_BODY
          ? undefined
          : { type, reqId, kind: kind === 1 ? 'pair' : 'call', hostId, source, body };
      }
      case 'reply': {
        const reqId = r.u32();
        const status = r.u16();
        const body = r.rest();
        return reqId === undefined ||
          status === undefined ||
          status < 200 ||
          status > 599 ||
          body.length > RELAY_MAX_REPLY_BODY
          ? undefined
          : { type, reqId, status, body };
      }
      case 'failure': {
        const reqId = r.u32();
        const text = utf8Decode(r.rest());
        return reqId === undefined || !isErrorCode(text) ? undefined : { type, reqId, code: text };
      }
      case 'claim': {
        const hostId = r.id();
        const hi = r.u32();
        const lo = r.u32();
        if (!hostId || hi === undefined || lo === undefined || hi >= 2 ** 21) return undefined;
        return { type, hostId, gen: hi * 2 ** 32 + lo };
      }
      default:
        return undefined;
    }
  })();
  if (!m || r.left !== 0) return bad;
  return ok({ from, message: m });
}
