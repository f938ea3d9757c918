import { fromBase64UrlExact, readUint64, toBase64Url, writeUint64 } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from '../key-sizes.js';
import { ByteReader, ByteWriter, boundedUtf8 } from './byte-cursor.js';
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

/** What a connection the relay opens on a host link is. Only devices, for now. */
export type RelayConnKind = 'device';
const KIND_CODES: Record<RelayConnKind, number> = { device: 1 };

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

/** The `about` frame's flag: the relay serves the app's pages. */
const ABOUT_SERVES_APP = 0x01;

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

/**
 * Reply statuses are what an HTTP response with a body may carry, so the relay can always pass
 * one on: 200–599 but 204, 205 and 304, which carry no body (a `Response` with one throws).
 */
function isHttpStatus(status: number): boolean {
  return (
    Number.isInteger(status) && status >= 200 && status <= 599 && status !== 204 && status !== 205 && status !== 304
  );
}

function sourceBytes(source: string): Uint8Array | undefined {
  const bytes = boundedUtf8(source, RELAY_MAX_SOURCE_BYTES);
  return bytes && bytes.length > 0 ? bytes : undefined;
}

function readSource(r: ByteReader): string | undefined {
  const length = r.u8();
  if (length === undefined || length === 0 || length > RELAY_MAX_SOURCE_BYTES) return undefined;
  return r.text(length);
}

const malformed = (what: string) => fail('malformed', `${what} frame is malformed`);

/**
 * Decodes one relay message. Views into `bytes` (payloads, bodies, keys) are not copied: keep the
 * input unchanged while the frame is in use. Never throws.
 */
export function decodeRelayFrame(bytes: Uint8Array): Result<RelayFrame> {
  if (bytes.length < 2) return fail('malformed', 'relay frame is shorter than its header');
  if (bytes[0] !== RELAY_LINK_VERSION) {
    return fail('version-unsupported', `relay frame version ${bytes[0]}; this side speaks ${RELAY_LINK_VERSION}`);
  }
  if (bytes.length > RELAY_MAX_PAYLOAD + RELAY_DATA_HEADER_BYTES) return fail('too-large', 'relay frame is too large');
  const type = bytes[1]!;
  const r = new ByteReader(bytes.subarray(2));
  const frame = decodeBody(type, r);
  if (!frame.ok) return frame;
  if (r.remaining !== 0) return fail('malformed', `${frame.value.type} frame has trailing bytes`);
  return frame;
}

function decodeBody(type: number, r: ByteReader): Result<RelayFrame> {
  switch (type) {
    case RelayFrameType.Challenge: {
      const nonce = r.take(RELAY_CHALLENGE_NONCE_BYTES);
      const timeBytes = r.take(8);
      const time = timeBytes && readUint64(timeBytes);
      const originBytes = r.remaining;
      const origin = r.text(originBytes);
      if (
        !nonce ||
        time === undefined ||
        !Number.isSafeInteger(time) ||
        !origin ||
        originBytes > RELAY_MAX_ORIGIN_BYTES
      ) {
        return malformed('challenge');
      }
      return ok({ type: 'challenge', nonce, time, origin });
    }
    case RelayFrameType.Auth: {
      const signPublicKey = r.take(KEY_BYTES);
      const signature = r.take(SIGNATURE_BYTES);
      if (!signPublicKey || !signature) return malformed('auth');
      return ok({ type: 'auth', signPublicKey, signature });
    }
    case RelayFrameType.Ready: {
      const hostId = r.take(HOST_ID_BYTES);
      const maxConnections = r.u16();
      const maxPayload = r.u32();
      if (!hostId || maxConnections === undefined || maxPayload === undefined) return malformed('ready');
      return ok({ type: 'ready', hostId: toBase64Url(hostId), maxConnections, maxPayload });
    }
    case RelayFrameType.Connect: {
      const hostSignPublicKey = r.take(KEY_BYTES);
      const ticket = r.rest();
      if (!hostSignPublicKey || ticket.length === 0 || ticket.length > RELAY_MAX_TICKET_BYTES)
        return malformed('connect');
      return ok({ type: 'connect', hostSignPublicKey, ticket });
    }
    case RelayFrameType.Open: {
      const connId = r.u32();
      const kindCode = r.u8();
      const deviceId = r.take(DEVICE_ID_BYTES);
      const source = readSource(r);
      if (connId === undefined || kindCode === undefined || !deviceId || source === undefined) return malformed('open');
      if (kindCode !== KIND_CODES.device) return fail('unsupported', `connection kind ${kindCode} is not known`);
      return ok({ type: 'open', connId, kind: 'device', deviceId: toBase64Url(deviceId), source });
    }
    case RelayFrameType.Data: {
      const connId = r.u32();
      if (connId === undefined) return malformed('data');
      const payload = r.rest();
      if (payload.length > RELAY_MAX_PAYLOAD) return fail('too-large', 'data payload is too large');
      return ok({ type: 'data', connId, payload });
    }
    case RelayFrameType.Close: {
      const connId = r.u32();
      const code = r.u16();
      const reasonBytes = r.remaining;
      const reason = r.text(reasonBytes);
      if (connId === undefined || code === undefined || reason === undefined) return malformed('close');
      if (!isSendableCloseCode(code) || reasonBytes > RELAY_MAX_CLOSE_REASON_BYTES) return malformed('close');
      return ok({ type: 'close', connId, code, reason });
    }
    case RelayFrameType.PairRequest:
    case RelayFrameType.CallRequest: {
      const pair = type === RelayFrameType.PairRequest;
      const reqId = r.u32();
      const source = readSource(r);
      if (reqId === undefined || source === undefined) return malformed(pair ? 'pair-request' : 'call-request');
      const body = r.rest();
      if (body.length > (pair ? RELAY_MAX_PAIR_BODY : RELAY_MAX_CALL_BODY))
        return fail('too-large', 'request is too large');
      return ok({ type: pair ? 'pair-request' : 'call-request', reqId, source, body });
    }
    case RelayFrameType.Reply: {
      const reqId = r.u32();
      const status = r.u16();
      if (reqId === undefined || status === undefined || !isHttpStatus(status)) return malformed('reply');
      const body = r.rest();
      if (body.length > RELAY_MAX_REPLY_BODY) return fail('too-large', 'reply is too large');
      return ok({ type: 'reply', reqId, status, body });
    }
    case RelayFrameType.Ping:
    case RelayFrameType.Pong: {
      const nonce = r.take(RELAY_PING_BYTES);
      if (!nonce) return malformed('ping');
      return ok({ type: type === RelayFrameType.Ping ? 'ping' : 'pong', nonce });
    }
    case RelayFrameType.Drain:
      return ok({ type: 'drain' });
    case RelayFrameType.About: {
      const flags = r.u8();
      // Bits not defined here are zero: each message has one encoding.
      if (flags === undefined || (flags & ~ABOUT_SERVES_APP) !== 0) return malformed('about');
      return ok({ type: 'about', servesApp: flags === ABOUT_SERVES_APP });
    }
    default:
      return fail('unsupported', `relay frame type 0x${type.toString(16).padStart(2, '0')} is not known`);
  }
}
