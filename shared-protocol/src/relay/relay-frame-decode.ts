import { readUint64, toBase64Url } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from '../key-sizes.js';
import { ByteReader } from './byte-cursor.js';
import { ABOUT_SERVES_APP, KIND_CODES, isHttpStatus, readSource } from './relay-frame-codes.js';
import type { RelayFrame } from './relay-frame.js';
import {
  RELAY_CHALLENGE_NONCE_BYTES,
  RELAY_MAX_TICKET_BYTES,
  RELAY_PING_BYTES,
  RelayFrameType,
  SIGNATURE_BYTES,
  isSendableCloseCode,
} from './relay-frame.js';
import * as limits from './relay-limits.js';

/** Decoding relay messages (their layout: relay-frame.ts). */

const malformed = (what: string) => fail('malformed', `${what} frame is malformed`);

/**
 * Decodes one relay message. Views into `bytes` (payloads, bodies, keys) are not copied: keep the
 * input unchanged while the frame is in use. Never throws.
 */
export function decodeRelayFrame(bytes: Uint8Array): Result<RelayFrame> {
  if (bytes.length < 2) return fail('malformed', 'relay frame is shorter than its header');
  if (bytes[0] !== limits.RELAY_LINK_VERSION) {
    return fail(
      'version-unsupported',
      `relay frame version ${bytes[0]}; this side speaks ${limits.RELAY_LINK_VERSION}`,
    );
  }
  if (bytes.length > limits.RELAY_MAX_PAYLOAD + limits.RELAY_DATA_HEADER_BYTES)
    return fail('too-large', 'relay frame is too large');
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
        originBytes > limits.RELAY_MAX_ORIGIN_BYTES
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
      if (payload.length > limits.RELAY_MAX_PAYLOAD) return fail('too-large', 'data payload is too large');
      return ok({ type: 'data', connId, payload });
    }
    case RelayFrameType.Close: {
      const connId = r.u32();
      const code = r.u16();
      const reasonBytes = r.remaining;
      const reason = r.text(reasonBytes);
      if (connId === undefined || code === undefined || reason === undefined) return malformed('close');
      if (!isSendableCloseCode(code) || reasonBytes > limits.RELAY_MAX_CLOSE_REASON_BYTES) return malformed('close');
      return ok({ type: 'close', connId, code, reason });
    }
    case RelayFrameType.PairRequest:
    case RelayFrameType.CallRequest: {
      const pair = type === RelayFrameType.PairRequest;
      const reqId = r.u32();
      const source = readSource(r);
      if (reqId === undefined || source === undefined) return malformed(pair ? 'pair-request' : 'call-request');
      const body = r.rest();
      if (body.length > (pair ? limits.RELAY_MAX_PAIR_BODY : limits.RELAY_MAX_CALL_BODY))
        return fail('too-large', 'request is too large');
      return ok({ type: pair ? 'pair-request' : 'call-request', reqId, source, body });
    }
    case RelayFrameType.Reply: {
      const reqId = r.u32();
      const status = r.u16();
      if (reqId === undefined || status === undefined || !isHttpStatus(status)) return malformed('reply');
      const body = r.rest();
      if (body.length > limits.RELAY_MAX_REPLY_BODY) return fail('too-large', 'reply is too large');
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
