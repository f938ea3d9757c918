import fc from 'fast-check';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { toBase64Url, utf8Decode, utf8Encode } from './encoding.js';
import type { Result } from './errors.js';
import { generateBoxKeyPair } from './identity.js';
import type { PairDeviceMessage, PairReply, PairReveal } from './pairing-messages.js';
import {
  decodePairRequestBody,
  openPairChallenge,
  openPairMessage,
  openPairReply,
  sealPairChallenge,
  sealPairCommit,
  sealPairReply,
  sealPairReveal,
} from './pairing-messages.js';
import { bitFlips } from './testing/mutations.js';
import { seededRandom } from './testing/seeded-random.js';
import { PROTOCOL_VERSION } from './version.js';

const random = seededRandom('pairing');
const device = generateBoxKeyPair(random);
const pairingId = random(16);
const pairingKey = random(32);
const commitment = random(32);
const challenge = { requestId: 'RRRRRRRRRRRRRRRRRRRRRQ', hostNonce: random(32) };
const reveal: PairReveal = {
  requestId: challenge.requestId,
  devicePublicKey: device.publicKey,
  deviceNonce: random(32),
  label: 'iPhone · Safari',
};

const reply: PairReply = {
  deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
  hostId: 'BBBBBBBBBBBBBBBBBBBBBB',
  hostName: 'laptop',
  hostBoxPublicKey: 'C'.repeat(42) + 'A',
  hostSignPublicKey: 'D'.repeat(42) + 'A',
  scopes: ['watch', 'approve'],
};

function openDevice(body: unknown, key = pairingKey): Result<PairDeviceMessage & { pairingId: Uint8Array }> {
  const decoded = decodePairRequestBody(body);
  if (!decoded.ok) return decoded;
  const opened = openPairMessage(decoded.value, key);
  return opened.ok ? { ok: true, value: { ...opened.value, pairingId: decoded.value.pairingId } } : opened;
}

const roundTrip = (body: object): unknown => JSON.parse(JSON.stringify(body));

/** Flips every bit of the JSON text of a body and returns the parsed variants that are still JSON. */
function* mutatedBodies(body: object): Generator<unknown> {
  for (const { mutated } of bitFlips(utf8Encode(JSON.stringify(body)))) {
    const text = utf8Decode(mutated);
    if (text === undefined) continue;
    try {
      yield JSON.parse(text);
    } catch {
      // not JSON: refused by the HTTP layer before it gets here
    }
  }
}

describe('pairing messages', () => {
  it('seal and open a commit, a challenge, a reveal and a reply', () => {
    expect(openDevice(roundTrip(sealPairCommit(pairingId, { commitment }, pairingKey, random)))).toEqual({
      ok: true,
      value: { type: 'pair-commit', commitment, pairingId },
    });
    expect(openPairChallenge(roundTrip(sealPairChallenge(challenge, pairingKey, random)), pairingKey)).toEqual({
      ok: true,
      value: challenge,
    });
    expect(openDevice(roundTrip(sealPairReveal(pairingId, reveal, pairingKey, random)))).toEqual({
      ok: true,
      value: { type: 'pair-reveal', ...reveal, pairingId },
    });
    expect(openPairReply(roundTrip(sealPairReply(reply, pairingKey, random)), pairingKey)).toEqual({
      ok: true,
      value: reply,
    });
  });

  it('refuses the wrong pairing key', () => {
    const other = random(32);
    const r = openDevice(sealPairCommit(pairingId, { commitment }, other, random));
    expect(!r.ok && r.error.code).toBe('pair-failed');
    const r2 = openPairChallenge(sealPairChallenge(challenge, other, random), pairingKey);
    expect(!r2.ok && r2.error.code).toBe('pair-failed');
    const r3 = openPairReply(sealPairReply(reply, other, random), pairingKey);
    expect(!r3.ok && r3.error.code).toBe('pair-failed');
  });

  it('never takes one message for another', () => {
    const sealedChallenge = sealPairChallenge(challenge, pairingKey, random);
    const sealedReply = sealPairReply(reply, pairingKey, random);
    // Host messages are not device messages…
    expect(openDevice({ ...sealedReply, pairingId: 'A'.repeat(22) }).ok).toBe(false);
    expect(openDevice({ ...sealedChallenge, pairingId: 'A'.repeat(22) }).ok).toBe(false);
    // …a challenge is not a reply, nor a reply a challenge…
    expect(openPairReply(sealedChallenge, pairingKey).ok).toBe(false);
    expect(openPairChallenge(sealedReply, pairingKey).ok).toBe(false);
    // …and device messages are neither.
    const commit = sealPairCommit(pairingId, { commitment }, pairingKey, random);
    const revealBody = sealPairReveal(pairingId, reveal, pairingKey, random);
    for (const body of [commit, revealBody]) {
      expect(openPairReply(body, pairingKey).ok).toBe(false);
      expect(openPairChallenge(body, pairingKey).ok).toBe(false);
    }
  });

  it('refuses every single-bit flip of each of the four messages', () => {
    const sameAsSent = (r: ReturnType<typeof openDevice>, sent: object) =>
      r.ok && JSON.stringify(r.value) === JSON.stringify({ ...sent, pairingId });
    let tried = 0;
    const deviceMessages: [object, object][] = [
      [sealPairCommit(pairingId, { commitment }, pairingKey, random), { type: 'pair-commit', commitment }],
      [sealPairReveal(pairingId, reveal, pairingKey, random), { type: 'pair-reveal', ...reveal }],
    ];
    for (const [body, sent] of deviceMessages) {
      for (const mutated of mutatedBodies(body)) {
        const r = openDevice(mutated);
        // A flip inside the pairing id names another link: the host finds no key for it. Any
        // other flip is refused outright.
        const sameLink = r.ok && r.value.pairingId.every((b, i) => b === pairingId[i]);
        expect(r.ok && sameLink).toBe(false);
        expect(sameAsSent(r, sent)).toBe(false);
        tried++;
      }
    }
    for (const body of [sealPairChallenge(challenge, pairingKey, random), sealPairReply(reply, pairingKey, random)]) {
      for (const mutated of mutatedBodies(body)) {
        expect(openPairChallenge(mutated, pairingKey).ok).toBe(false);
        expect(openPairReply(mutated, pairingKey).ok).toBe(false);
        tried++;
      }
    }
    expect(tried).toBeGreaterThan(1000);
  });

  it('names a version mismatch, either way', () => {
    const body = { ...sealPairCommit(pairingId, { commitment }, pairingKey, random), v: PROTOCOL_VERSION - 1 };
    const r = decodePairRequestBody(body);
    expect(!r.ok && r.error.code).toBe('version-unsupported');
    const answer = { ...sealPairChallenge(challenge, pairingKey, random), v: PROTOCOL_VERSION + 1 };
    const r2 = openPairChallenge(answer, pairingKey);
    expect(!r2.ok && r2.error.code).toBe('version-unsupported');
  });

  it('never throws on arbitrary bodies', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(typeof openDevice(input).ok).toBe('boolean');
        expect(typeof openPairChallenge(input, pairingKey).ok).toBe('boolean');
        expect(typeof openPairReply(input, pairingKey).ok).toBe('boolean');
      }),
    );
  });

  it('never throws on arbitrary plaintexts sealed with the right key', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (plain) => {
        const nonce = random(24);
        const box = sealPairCommit(pairingId, { commitment }, pairingKey, () => nonce);
        // Reseal an arbitrary plaintext in the same envelope: the shape check must refuse it.
        const body = { ...box, box: reseal(plain, nonce) };
        expect(typeof openDevice(body).ok).toBe('boolean');
        expect(typeof openPairChallenge({ v: box.v, nonce: box.nonce, box: body.box }, pairingKey).ok).toBe('boolean');
      }),
      { numRuns: 200 },
    );
  });
});

function reseal(plain: unknown, nonce: Uint8Array): string {
  return toBase64Url(nacl.secretbox(utf8Encode(JSON.stringify(plain) ?? 'null'), nonce, pairingKey));
}
