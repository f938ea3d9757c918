import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toBase64Url, utf8Encode } from '../encoding.js';
import { isErrorCode } from '../errors.js';
import type { RelayFrame } from './relay-frame.js';
import { RelayFrameType, encodeRelayData, encodeRelayFrame, isSendableCloseCode } from './relay-frame.js';
import { decodeRelayFrame } from './relay-frame-decode.js';
import {
  RELAY_LINK_VERSION,
  RELAY_MAX_CALL_BODY,
  RELAY_MAX_PAIR_BODY,
  RELAY_MAX_PAYLOAD,
  RELAY_MAX_REPLY_BODY,
} from './relay-limits.js';

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n });
const id22 = bytes(16).map(toBase64Url);
const u32 = fc.nat({ max: 0xffffffff });
/** Text whose UTF-8 fits in `max` bytes (each code point takes at most 4). */
const text = (min: number, max: number) =>
  fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.floor(max / 8) }).filter((s) => {
    const n = utf8Encode(s).length;
    return n >= min && n <= max;
  });
const closeCode = fc.oneof(
  fc.constantFrom(1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014),
  fc.integer({ min: 3000, max: 4999 }),
);

const relayFrameArb: fc.Arbitrary<RelayFrame> = fc.oneof(
  fc.record({
    type: fc.constant('challenge' as const),
    nonce: bytes(32),
    time: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
    origin: text(1, 255),
  }),
  fc.record({ type: fc.constant('auth' as const), signPublicKey: bytes(32), signature: bytes(64) }),
  fc.record({
    type: fc.constant('ready' as const),
    hostId: id22,
    maxConnections: fc.nat({ max: 0xffff }),
    maxPayload: u32,
  }),
  fc.record({
    type: fc.constant('connect' as const),
    hostSignPublicKey: bytes(32),
    ticket: fc.uint8Array({ minLength: 1, maxLength: 512 }),
  }),
  fc.record({
    type: fc.constant('open' as const),
    connId: u32,
    kind: fc.constant('device' as const),
    deviceId: id22,
    source: text(1, 64),
  }),
  fc.record({ type: fc.constant('data' as const), connId: u32, payload: fc.uint8Array({ maxLength: 300 }) }),
  fc.record({ type: fc.constant('close' as const), connId: u32, code: closeCode, reason: text(0, 123) }),
  fc.record({
    type: fc.constantFrom('pair-request' as const, 'call-request' as const),
    reqId: u32,
    source: text(1, 64),
    body: fc.uint8Array({ maxLength: 300 }),
  }),
  fc.record({
    type: fc.constant('reply' as const),
    reqId: u32,
    status: fc.integer({ min: 200, max: 599 }).filter((s) => s !== 204 && s !== 205 && s !== 304),
    body: fc.uint8Array({ maxLength: 300 }),
  }),
  fc.record({ type: fc.constantFrom('ping' as const, 'pong' as const), nonce: bytes(8) }),
  fc.constant({ type: 'drain' as const }),
  fc.record({ type: fc.constant('about' as const), servesApp: fc.boolean() }),
);

const encode = (frame: RelayFrame) => {
  const r = encodeRelayFrame(frame);
  if (!r.ok) throw new Error(`${frame.type}: ${r.error.message}`);
  return r.value;
};

describe('relay frames', () => {
  it('decode(encode(x)) = x for every frame', () => {
    fc.assert(
      fc.property(relayFrameArb, (frame) => {
        const bytes = encode(frame);
        expect(bytes[0]).toBe(RELAY_LINK_VERSION);
        const decoded = decodeRelayFrame(bytes);
        expect(decoded).toEqual({ ok: true, value: frame });
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws on random bytes, and every refusal carries a known code', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (input) => {
        const r = decodeRelayFrame(input);
        if (!r.ok) expect(isErrorCode(r.error.code)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('never throws on mutated frames, and a frame that still decodes encodes back to the same bytes', () => {
    fc.assert(
      fc.property(relayFrameArb, fc.nat(), fc.nat({ max: 255 }), fc.boolean(), (frame, at, value, cut) => {
        const bytes = encode(frame).slice();
        const mutated = cut ? bytes.subarray(0, at % (bytes.length + 1)) : bytes;
        if (!cut && bytes.length > 0) bytes[at % bytes.length] = value;
        const r = decodeRelayFrame(mutated);
        if (r.ok) expect(encode(r.value)).toEqual(mutated);
        else expect(isErrorCode(r.error.code)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('encodes a data frame as version | type | connId | payload', () => {
    const r = encodeRelayData(0x01020304, Uint8Array.of(9, 8, 7));
    expect(r).toEqual({ ok: true, value: Uint8Array.of(1, RelayFrameType.Data, 1, 2, 3, 4, 9, 8, 7) });
  });

  it('encodes what a relay is as version | type | flags, and refuses flags it does not define', () => {
    expect(encode({ type: 'about', servesApp: true })).toEqual(Uint8Array.of(1, RelayFrameType.About, 1));
    expect(encode({ type: 'about', servesApp: false })).toEqual(Uint8Array.of(1, RelayFrameType.About, 0));
    expect(decodeRelayFrame(Uint8Array.of(1, RelayFrameType.About, 3))).toMatchObject({
      ok: false,
      error: { code: 'malformed' },
    });
  });

  it('refuses another version with version-unsupported', () => {
    const bytes = encode({ type: 'ping', nonce: new Uint8Array(8) });
    bytes[0] = 2;
    expect(decodeRelayFrame(bytes)).toMatchObject({ ok: false, error: { code: 'version-unsupported' } });
  });

  it('answers an unknown type with unsupported (counted and skipped, not fatal)', () => {
    expect(decodeRelayFrame(Uint8Array.of(RELAY_LINK_VERSION, 0x7f, 1, 2))).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
  });

  it('refuses trailing bytes, so each frame has exactly one encoding', () => {
    const bytes = encode({ type: 'pong', nonce: new Uint8Array(8) });
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(decodeRelayFrame(longer)).toMatchObject({ ok: false, error: { code: 'malformed' } });
  });

  it('bounds every variable field on both sides', () => {
    const big = (n: number) => new Uint8Array(n + 1);
    expect(encodeRelayData(1, big(RELAY_MAX_PAYLOAD))).toMatchObject({ ok: false, error: { code: 'too-large' } });
    expect(encodeRelayData(1, new Uint8Array(RELAY_MAX_PAYLOAD)).ok).toBe(true);
    const reqs: RelayFrame[] = [
      { type: 'pair-request', reqId: 1, source: 'a', body: big(RELAY_MAX_PAIR_BODY) },
      { type: 'call-request', reqId: 1, source: 'a', body: big(RELAY_MAX_CALL_BODY) },
      { type: 'reply', reqId: 1, status: 200, body: big(RELAY_MAX_REPLY_BODY) },
    ];
    for (const f of reqs) expect(encodeRelayFrame(f)).toMatchObject({ ok: false, error: { code: 'too-large' } });
    // A decoder given an oversized body (as a hostile sender would write it) refuses it too.
    const pair = encode({ type: 'pair-request', reqId: 1, source: 'a', body: new Uint8Array(RELAY_MAX_PAIR_BODY) });
    const oversized = new Uint8Array(pair.length + 1);
    oversized.set(pair);
    expect(decodeRelayFrame(oversized)).toMatchObject({ ok: false, error: { code: 'too-large' } });

    const bad: RelayFrame[] = [
      { type: 'open', connId: 1, kind: 'device', deviceId: 'short', source: 'x' },
      { type: 'open', connId: 1, kind: 'device', deviceId: 'A'.repeat(21) + 'A', source: '' },
      { type: 'open', connId: 1, kind: 'device', deviceId: 'A'.repeat(22), source: 'x'.repeat(65) },
      { type: 'close', connId: 1, code: 1006, reason: '' },
      { type: 'close', connId: 1, code: 2000, reason: '' },
      { type: 'close', connId: 1, code: 4000, reason: 'é'.repeat(62) },
      { type: 'close', connId: -1, code: 4000, reason: '' },
      { type: 'data', connId: 2 ** 32, payload: new Uint8Array(0) },
      { type: 'reply', reqId: 1, status: 101, body: new Uint8Array(0) },
      { type: 'reply', reqId: 1, status: 600, body: new Uint8Array(0) },
      { type: 'challenge', nonce: new Uint8Array(32), time: 1, origin: '' },
      { type: 'challenge', nonce: new Uint8Array(31), time: 1, origin: 'https://r' },
      { type: 'auth', signPublicKey: new Uint8Array(32), signature: new Uint8Array(63) },
      { type: 'connect', hostSignPublicKey: new Uint8Array(32), ticket: new Uint8Array(0) },
      { type: 'ping', nonce: new Uint8Array(7) },
    ];
    for (const f of bad) expect(encodeRelayFrame(f), JSON.stringify(f)).toMatchObject({ ok: false });
  });

  it('refuses a close code that a WebSocket may not send, so the relay can always pass one on', () => {
    const bytes = encode({ type: 'close', connId: 7, code: 4000, reason: 'x' });
    bytes[6] = 0x03; // code 0x03a0 = 928
    bytes[7] = 0xa0;
    expect(decodeRelayFrame(bytes)).toMatchObject({ ok: false, error: { code: 'malformed' } });
    for (const code of [1000, 1001, 1011, 3000, 4999]) expect(isSendableCloseCode(code)).toBe(true);
    for (const code of [999, 1004, 1005, 1006, 1015, 2999, 5000, 1000.5]) expect(isSendableCloseCode(code)).toBe(false);
  });

  it('refuses a reply status an HTTP response cannot carry a body with (204, 205, 304)', () => {
    // The relay answers the caller with the host's status and body; `new Response(body, {status:
    // 204})` throws, so such a reply would end as a 500 without a code.
    for (const status of [204, 205, 304]) {
      expect(
        encodeRelayFrame({ type: 'reply', reqId: 1, status, body: new Uint8Array(0) }),
        String(status),
      ).toMatchObject({ ok: false, error: { code: 'malformed' } });
      const bytes = encode({ type: 'reply', reqId: 1, status: 200, body: new Uint8Array(0) });
      bytes[6] = status >> 8;
      bytes[7] = status & 0xff;
      expect(decodeRelayFrame(bytes), String(status)).toMatchObject({ ok: false, error: { code: 'malformed' } });
    }
  });

  it('refuses text fields that are not UTF-8', () => {
    const bytes = encode({ type: 'close', connId: 7, code: 4000, reason: 'ab' });
    bytes[bytes.length - 1] = 0xff;
    expect(decodeRelayFrame(bytes)).toMatchObject({ ok: false, error: { code: 'malformed' } });
  });
});
