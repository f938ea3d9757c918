import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ERROR_MESSAGE, isErrorCode } from './errors.js';
import type { Result } from './errors.js';
import { HandshakeInitiator, HandshakeResponder } from './handshake.js';
import { decodeHostIdentity, generateBoxKeyPair, generateDeviceId } from './identity.js';
import { openCall, openCallReply, sealCall } from './one-shot.js';
import { formatPairingLink, parsePairingLink } from './pairing-link.js';
import { decodePairRequestBody, openPairChallenge, openPairMessage, openPairReply } from './pairing-messages.js';
import { ReplayCache } from './replay-cache.js';
import { decodeChannelMessage, encodeChannelMessage } from './rpc/channel.js';
import { decodeEvent } from './rpc/events.js';
import { FrameOpener, FrameSealer } from './sealed-frame.js';
import { ManualClock } from './testing/manual-clock.js';
import { seededRandom } from './testing/seeded-random.js';
import { utf8Encode } from './encoding.js';

/**
 * Every decoder meets random and mutated input and must answer with a typed error (a Result
 * whose code is in the closed list), never an exception.
 */

const random = seededRandom('decoders');
const clock = new ManualClock();
const host = generateBoxKeyPair(random);
const device = generateBoxKeyPair(random);
const deviceId = generateDeviceId(random);
const lookupDevice = (id: string) => (id === deviceId ? device.publicKey : undefined);
const key = random(32);

function expectTyped(r: Result<unknown>) {
  if (!r.ok) expect(isErrorCode(r.error.code), r.error.code).toBe(true);
}

/** Valid messages of each kind, to be mutated. */
const seeds = {
  hello: new HandshakeInitiator({
    deviceId,
    deviceKeys: device,
    hostBoxPublicKey: host.publicKey,
    clock,
    random,
  }).hello(),
  frame: (
    new FrameSealer(key).seal(encodeChannelMessage({ t: 'req', id: 1, method: 'host.info', params: {} })) as {
      value: Uint8Array;
    }
  ).value,
  call: sealCall({ deviceId, deviceKeys: device, hostBoxPublicKey: host.publicKey, clock, random }, utf8Encode('{}'))
    .message,
};

/** Arbitrary bytes, and valid messages with random bytes overwritten, inserted or cut. */
const bytesLike = (seed: Uint8Array) =>
  fc.oneof(
    fc.uint8Array({ maxLength: 400 }),
    fc
      .tuple(
        fc.nat({ max: seed.length }),
        fc.uint8Array({ minLength: 1, maxLength: 8 }),
        fc.constantFrom('overwrite', 'insert', 'cut'),
      )
      .map(([at, noise, how]) => {
        const copy = Array.from(seed);
        if (how === 'overwrite') copy.splice(at, noise.length, ...noise);
        else if (how === 'insert') copy.splice(at, 0, ...noise);
        else copy.splice(at, noise.length);
        return Uint8Array.from(copy);
      }),
  );

describe('decoders under random and mutated input', () => {
  it('handshake responder', () => {
    fc.assert(
      fc.property(bytesLike(seeds.hello), (bytes) => {
        const responder = new HandshakeResponder({
          hostKeys: host,
          lookupDevice,
          clock,
          random,
          replay: new ReplayCache(clock),
        });
        const r = responder.acceptHello(bytes);
        expectTyped(r);
        if (r.ok) expect(bytes).toEqual(seeds.hello);
      }),
    );
  });

  it('handshake initiator', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        const init = new HandshakeInitiator({
          deviceId,
          deviceKeys: device,
          hostBoxPublicKey: host.publicKey,
          clock,
          random,
        });
        init.hello();
        const r = init.acceptWelcome(bytes);
        expectTyped(r);
        expect(r.ok).toBe(false);
      }),
    );
  });

  it('frame opener', () => {
    fc.assert(
      fc.property(bytesLike(seeds.frame), (bytes) => {
        const r = new FrameOpener(key).open(bytes);
        expectTyped(r);
        if (r.ok) expect(bytes).toEqual(seeds.frame);
      }),
    );
  });

  it('one-shot calls and replies', () => {
    fc.assert(
      fc.property(bytesLike(seeds.call), (bytes) => {
        const r = openCall(bytes, { hostKeys: host, lookupDevice, clock, replay: new ReplayCache(clock) });
        expectTyped(r);
        if (r.ok) expect(bytes).toEqual(seeds.call);
        const reply = openCallReply(bytes, key);
        expectTyped(reply);
        expect(reply.ok).toBe(false);
      }),
    );
  });

  it('pairing bodies, links and identity files', () => {
    const link = formatPairingLink({
      base: 'http://192.168.1.5:7420',
      hostBoxPublicKey: host.publicKey,
      pairingId: random(16),
      pairingKey: key,
    });
    fc.assert(
      fc.property(fc.anything(), fc.string(), (value, text) => {
        const body = decodePairRequestBody(value);
        expectTyped(body);
        if (body.ok) expectTyped(openPairMessage(body.value, key));
        expectTyped(openPairChallenge(value, key));
        expectTyped(openPairReply(value, key));
        expectTyped(decodeHostIdentity(value));
        expectTyped(parsePairingLink(text));
        expectTyped(parsePairingLink(link.slice(0, text.length % link.length) + text));
      }),
    );
  });

  it('channel messages and events', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.jsonValue().map((j) => utf8Encode(JSON.stringify(j))),
        ),
        (bytes) => {
          const decoded = decodeChannelMessage(bytes);
          if (decoded?.t === 'evt') expect(['event', 'unknown', 'invalid']).toContain(decodeEvent(decoded.event).kind);
        },
      ),
    );
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(['event', 'unknown', 'invalid']).toContain(decodeEvent(value).kind);
      }),
    );
  });
});

describe('channel messages', () => {
  it('round-trip each kind and refuse unknown kinds', () => {
    const messages = [
      { t: 'req', id: 1, method: 'sessions.list', params: {} },
      { t: 'res', id: 1, result: { sessions: [] } },
      { t: 'res', id: 2, error: { code: 'forbidden', message: 'needs chat' } },
      { t: 'evt', event: { type: 'notice' } },
      { t: 'ping', n: 3 },
      { t: 'pong', n: 3 },
      { t: 'bye', code: 'revoked', message: 'revoked' },
    ] as const;
    for (const m of messages) expect(decodeChannelMessage(encodeChannelMessage(m))).toEqual(m);
    expect(decodeChannelMessage(utf8Encode('{"t":"shell","cmd":"rm"}'))).toBeUndefined();
    expect(decodeChannelMessage(utf8Encode('{"t":"res","id":1}'))).toBeUndefined();
    expect(decodeChannelMessage(utf8Encode('{"t":"res","id":1,"error":{"code":"nope","message":""}}'))).toBeUndefined();
  });

  it('cut an error or goodbye message over the limit as they are encoded, so the other side can read them', () => {
    const long = 'é'.repeat(MAX_ERROR_MESSAGE + 5);
    const reply = decodeChannelMessage(
      encodeChannelMessage({ t: 'res', id: 7, error: { code: 'invalid-params', message: long, retryable: false } }),
    );
    expect(reply).toEqual({
      t: 'res',
      id: 7,
      error: { code: 'invalid-params', message: `${long.slice(0, MAX_ERROR_MESSAGE - 1)}…`, retryable: false },
    });
    const bye = decodeChannelMessage(encodeChannelMessage({ t: 'bye', code: 'revoked', message: long }));
    expect(bye).toEqual({ t: 'bye', code: 'revoked', message: `${long.slice(0, MAX_ERROR_MESSAGE - 1)}…` });
  });

  it('take an event envelope as the schema would, leaving the event to its one schema pass', () => {
    const event = { type: 'notice', sessionId: 's1', seq: 1, at: 1, level: 'info', text: 'hi' };
    expect(decodeChannelMessage(utf8Encode(JSON.stringify({ t: 'evt', event, extra: 1 })))).toEqual({
      t: 'evt',
      event,
    });
    expect(decodeChannelMessage(utf8Encode('{"t":"evt","event":null}'))).toEqual({ t: 'evt', event: null });
    expect(decodeChannelMessage(utf8Encode('{"t":"evt"}'))).toBeUndefined();
    expect(decodeChannelMessage(utf8Encode('[{"t":"evt","event":1}]'))).toBeUndefined();
    expect(decodeChannelMessage(utf8Encode('{"t":"evt","event":{"type":"notice"'))).toBeUndefined();
  });

  it('decode events by type, skipping unknown ones', () => {
    const base = { sessionId: 's1', seq: 1, at: 1 };
    expect(decodeEvent({ ...base, type: 'notice', level: 'info', text: 'hi' }).kind).toBe('event');
    expect(decodeEvent({ ...base, type: 'notice', level: 'loud', text: 'hi' }).kind).toBe('invalid');
    expect(decodeEvent({ ...base, type: 'session.deleted' })).toEqual({ kind: 'unknown', type: 'session.deleted' });
    expect(decodeEvent({ type: 'terminal.exit', terminalId: 't1', code: 0 }).kind).toBe('event');
  });
});
