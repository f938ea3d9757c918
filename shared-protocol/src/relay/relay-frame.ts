import { fromBase64UrlExact, writeUint64 } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from '../key-sizes.js';
import { ByteWriter, boundedUtf8 } from './byte-cursor.js';
import {
  RELAY_DATA_HEADER_BYTES,
  RELAY_LINK_VERSION,
  RELAY_MAX_CALL_BODY,
  RELAY_MAX_CLOSE_REASON_BYTES,
  RELAY_MAX_ORIGIN_BYTES,
  RELAY_MAX_PAIR_BODY,
  RELAY_MAX_PAYLOAD,
  RELAY_MAX_REPLY_BODY,
  RELAY_MAX_SOURCE_BYTES,
} from './relay-limits.js';
import type { RelayConnKind } from './relay-frame-codes.js';
import { ABOUT_SERVES_APP, KIND_CODES, isHttpStatus } from './relay-frame-codes.js';

export type { RelayConnKind } from './relay-frame-codes.js';

/**
 * Every message of the relay protocol: the host link (one WebSocket per host, multiplexing its
 * device connections) and the device's first message. Binary WebSocket messages:
 *
 *   message = version(1) | type(1) | body
 *
 * Numbers are big-endian; text is strict UTF-8 with its length bounded. Decoding refuses trailing
 * bytes, so each message has exactly one encoding. An unknown type decodes as `unsupported`: the
 * receiver counts it and skips it; anything else that does not decode is `malformed` or
 * `too-large`, and the receiver closes the link.
 */
export const RelayFrameType = {
  /** relay → host: prove who you are. */
  Challenge: 0x01,
  /** host → relay: the signed answer. */
  Auth: 0x02,
  /** relay → host: the link is up. */
  Ready: 0x03,
  /** device → relay, first message on `/relay/connect/:hostId`: the host's key and a ticket. */
  Connect: 0x04,
  /** relay → host, right after `ready`: what this relay is (whether it serves the app). */
  About: 0x05,
  /** relay → host: a device connection opened. */
  Open: 0x10,
  /** both ways: opaque bytes of one device connection. */
  Data: 0x11,
  /** both ways: one device connection ended. */
  Close: 0x12,
  /** relay → host: `POST /relay/pair/:hostId`. */
  PairRequest: 0x20,
  /** relay → host: `POST /relay/call/:hostId`. */
  CallRequest: 0x21,
  /** host → relay: the answer to a pair request or call. */
  Reply: 0x22,
  Ping: 0x30,
  Pong: 0x31,
  /** relay → host: this node is shutting down: link again now (elsewhere), its devices follow. */
  Drain: 0x32,
} as const;

export type RelayFrame =
  | { type: 'challenge'; nonce: Uint8Array; time: number; origin: string }
  | { type: 'auth'; signPublicKey: Uint8Array; signature: Uint8Array }
  | { type: 'ready'; hostId: string; maxConnections: number; maxPayload: number }
  | { type: 'connect'; hostSignPublicKey: Uint8Array; ticket: Uint8Array }
  /** `servesApp`: whether the relay serves the app's pages (false with `--no-app`). A host that
   * does not know the frame skips it; one that never gets it takes the relay to serve none. */
  | { type: 'about'; servesApp: boolean }
  | { type: 'open'; connId: number; kind: RelayConnKind; deviceId: string; source: string }
  | { type: 'data'; connId: number; payload: Uint8Array }
  | { type: 'close'; connId: number; code: number; reason: string }
  | { type: 'pair-request'; reqId: number; source: string; body: Uint8Array }
  | { type: 'call-request'; reqId: number; source: string; body: Uint8Array }
  | { type: 'reply'; reqId: number; status: number; body: Uint8Array }
  | { type: 'ping'; nonce: Uint8Array }
  | { type: 'pong'; nonce: Uint8Array }
  | { type: 'drain' };

export type RelayFrameName = RelayFrame['type'];

/** Who may send each message; a receiver treats a message from the wrong side as a protocol error. */
export const RELAY_FRAME_SENDER: Record<RelayFrameName, 'relay' | 'host' | 'device' | 'relay-or-host'> = {
  challenge: 'relay',
  auth: 'host',
  ready: 'relay',
  connect: 'device',
  about: 'relay',
  open: 'relay',
  data: 'relay-or-host',
  close: 'relay-or-host',
  'pair-request': 'relay',
  'call-request': 'relay',
  reply: 'host',
  ping: 'relay-or-host',
  pong: 'relay-or-host',
  drain: 'relay',
};

export const RELAY_CHALLENGE_NONCE_BYTES = 32;
export const RELAY_PING_BYTES = 8;
export const SIGNATURE_BYTES = 64;
/** Bytes of a ticket in a connect request: version 1 tickets are 105; later ones may differ. */
export const RELAY_MAX_TICKET_BYTES = 512;

/**
 * Close codes a WebSocket close frame may carry (RFC 6455 §7.4): what the relay can pass on to a
 * device's socket unchanged. 1004–1006 and 1015 are reserved for local use and never sent.
 */
export function isSendableCloseCode(code: number): boolean {
  return (
    Number.isInteger(code) &&
    ((code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
      (code >= 3000 && code <= 4999))
  );
}

const isU32 = (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffffffff;
const header = (w: ByteWriter, type: number) => w.u8(RELAY_LINK_VERSION).u8(type);

/** The hot path: a `data` frame, without building an object first. */
export function encodeRelayData(connId: number, payload: Uint8Array): Result<Uint8Array> {
  if (!isU32(connId)) return fail('malformed', 'connection id is not a 32-bit unsigned integer');
  if (payload.length > RELAY_MAX_PAYLOAD) return fail('too-large', `payload is over ${RELAY_MAX_PAYLOAD} bytes`);
  const w = new ByteWriter(RELAY_DATA_HEADER_BYTES + payload.length);
  return ok(header(w, RelayFrameType.Data).u32(connId).put(payload).bytes);
}

export function encodeRelayFrame(frame: RelayFrame): Result<Uint8Array> {
  switch (frame.type) {
    case 'challenge': {
      const origin = boundedUtf8(frame.origin, RELAY_MAX_ORIGIN_BYTES);
      if (frame.nonce.length !== RELAY_CHALLENGE_NONCE_BYTES)
        return fail('malformed', 'challenge nonce is not 32 bytes');
      if (!origin || origin.length === 0) return fail('malformed', 'challenge origin is empty or too long');
      if (!Number.isSafeInteger(frame.time) || frame.time < 0) return fail('malformed', 'challenge time is invalid');
      const w = new ByteWriter(2 + 32 + 8 + origin.length);
      return ok(header(w, RelayFrameType.Challenge).put(frame.nonce).put(writeUint64(frame.time)).put(origin).bytes);
    }
    case 'auth': {
      if (frame.signPublicKey.length !== KEY_BYTES || frame.signature.length !== SIGNATURE_BYTES) {
        return fail('malformed', 'auth needs a 32-byte key and a 64-byte signature');
      }
      const w = new ByteWriter(2 + KEY_BYTES + SIGNATURE_BYTES);
      return ok(header(w, RelayFrameType.Auth).put(frame.signPublicKey).put(frame.signature).bytes);
    }
    case 'ready': {
      const hostId = fromBase64UrlExact(frame.hostId, HOST_ID_BYTES);
      if (!hostId) return fail('malformed', 'host id is not 16 bytes of base64url');
      if (!Number.isInteger(frame.maxConnections) || frame.maxConnections < 0 || frame.maxConnections > 0xffff) {
        return fail('malformed', 'maxConnections is not a 16-bit unsigned integer');
      }
      if (!isU32(frame.maxPayload)) return fail('malformed', 'maxPayload is not a 32-bit unsigned integer');
      const w = new ByteWriter(2 + HOST_ID_BYTES + 2 + 4);
      return ok(header(w, RelayFrameType.Ready).put(hostId).u16(frame.maxConnections).u32(frame.maxPayload).bytes);
    }
    case 'connect': {
      if (frame.hostSignPublicKey.length !== KEY_BYTES) return fail('malformed', 'host key is not 32 bytes');
      if (frame.ticket.length === 0 || frame.ticket.length > RELAY_MAX_TICKET_BYTES) {
        return fail('malformed', 'ticket is empty or too long');
      }
      const w = new ByteWriter(2 + KEY_BYTES + frame.ticket.length);
      return ok(header(w, RelayFrameType.Connect).put(frame.hostSignPublicKey).put(frame.ticket).bytes);
    }
    case 'open': {
      const deviceId = fromBase64UrlExact(frame.deviceId, DEVICE_ID_BYTES);
      const source = sourceBytes(frame.source);
      if (!isU32(frame.connId)) return fail('malformed', 'connection id is not a 32-bit unsigned integer');
      if (!deviceId) return fail('malformed', 'device id is not 16 bytes of base64url');
      if (!source) return fail('malformed', 'source address is empty or too long');
      const w = new ByteWriter(2 + 4 + 1 + DEVICE_ID_BYTES + 1 + source.length);
      header(w, RelayFrameType.Open).u32(frame.connId).u8(KIND_CODES[frame.kind]).put(deviceId);
      return ok(w.u8(source.length).put(source).bytes);
    }
    case 'data':
      return encodeRelayData(frame.connId, frame.payload);
    case 'close': {
      const reason = boundedUtf8(frame.reason, RELAY_MAX_CLOSE_REASON_BYTES);
      if (!isU32(frame.connId)) return fail('malformed', 'connection id is not a 32-bit unsigned integer');
      if (!isSendableCloseCode(frame.code)) return fail('malformed', `close code ${frame.code} cannot be sent`);
      if (!reason) return fail('malformed', 'close reason is too long');
      const w = new ByteWriter(2 + 4 + 2 + reason.length);
      return ok(header(w, RelayFrameType.Close).u32(frame.connId).u16(frame.code).put(reason).bytes);
    }
    case 'pair-request':
    case 'call-request': {
      const pair = frame.type === 'pair-request';
      const max = pair ? RELAY_MAX_PAIR_BODY : RELAY_MAX_CALL_BODY;
      const source = sourceBytes(frame.source);
      if (!isU32(frame.reqId)) return fail('malformed', 'request id is not a 32-bit unsigned integer');
      if (!source) return fail('malformed', 'source address is empty or too long');
      if (frame.body.length > max) return fail('too-large', `request body is over ${max} bytes`);
      const w = new ByteWriter(2 + 4 + 1 + source.length + frame.body.length);
      header(w, pair ? RelayFrameType.PairRequest : RelayFrameType.CallRequest).u32(frame.reqId);
      return ok(w.u8(source.length).put(source).put(frame.body).bytes);
    }
    case 'reply': {
      if (!isU32(frame.reqId)) return fail('malformed', 'request id is not a 32-bit unsigned integer');
      if (!isHttpStatus(frame.status)) return fail('malformed', `status ${frame.status} is not 200–599 with a body`);
      if (frame.body.length > RELAY_MAX_REPLY_BODY)
        return fail('too-large', `reply is over ${RELAY_MAX_REPLY_BODY} bytes`);
      const w = new ByteWriter(2 + 4 + 2 + frame.body.length);
      return ok(header(w, RelayFrameType.Reply).u32(frame.reqId).u16(frame.status).put(frame.body).bytes);
    }
    case 'ping':
    case 'pong': {
      if (frame.nonce.length !== RELAY_PING_BYTES) return fail('malformed', 'ping nonce is not 8 bytes');
      const w = new ByteWriter(2 + RELAY_PING_BYTES);
      return ok(header(w, frame.type === 'ping' ? RelayFrameType.Ping : RelayFrameType.Pong).put(frame.nonce).bytes);
    }
    case 'drain':
      return ok(header(new ByteWriter(2), RelayFrameType.Drain).bytes);
    case 'about':
      return ok(header(new ByteWriter(3), RelayFrameType.About).u8(frame.servesApp ? ABOUT_SERVES_APP : 0).bytes);
  }
}

function sourceBytes(source: string): Uint8Array | undefined {
  const bytes = boundedUtf8(source, RELAY_MAX_SOURCE_BYTES);
  return bytes && bytes.length > 0 ? bytes : undefined;
}
