import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Decode, utf8Encode } from './encoding.js';
import { generateBoxKeyPair } from './identity.js';
import type { PairReply } from './pairing-messages.js';
import {
  confirmationCode,
  decodePairRequestBody,
  formatConfirmationCode,
  openPairReply,
  openPairRequest,
  sealPairReply,
  sealPairRequest,
} from './pairing-messages.js';
import { bitFlips } from './testing/mutations.js';
import { seededRandom } from './testing/seeded-random.js';

const random = seededRandom('pairing');
const host = generateBoxKeyPair(random);
const device = generateBoxKeyPair(random);
const pairingId = random(16);
const pairingKey = random(32);

const reply: PairReply = {
  deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
  hostId: 'BBBBBBBBBBBBBBBBBBBBBB',
  hostName: 'laptop',
  hostBoxPublicKey: 'C'.repeat(42) + 'A',
  hostSignPublicKey: 'D'.repeat(42) + 'A',
  scopes: ['watch', 'approve'],
};

function openRequest(body: unknown) {
  const decoded = decodePairRequestBody(body);
  return decoded.ok ? openPairRequest(decoded.value, pairingKey) : decoded;
}

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
  it('seal and open a request and a reply', () => {
    const body = sealPairRequest(
      { pairingId, devicePublicKey: device.publicKey, label: 'iPhone · Safari' },
      pairingKey,
      random,
    );
    const opened = openRequest(JSON.parse(JSON.stringify(body)));
    expect(opened).toEqual({
      ok: true,
      value: { pairingId, devicePublicKey: device.publicKey, label: 'iPhone · Safari' },
    });
    const sealed = sealPairReply(reply, pairingKey, random);
    expect(openPairReply(JSON.parse(JSON.stringify(sealed)), pairingKey)).toEqual({ ok: true, value: reply });
  });

  it('refuses the wrong pairing key', () => {
    const body = sealPairRequest({ pairingId, devicePublicKey: device.publicKey, label: 'x' }, random(32), random);
    const r = openRequest(body);
    expect(!r.ok && r.error.code).toBe('pair-failed');
    const sealed = sealPairReply(reply, random(32), random);
    const r2 = openPairReply(sealed, pairingKey);
    expect(!r2.ok && r2.error.code).toBe('pair-failed');
  });

  it('never takes a reply for a request or a request for a reply', () => {
    const sealedReply = sealPairReply(reply, pairingKey, random);
    const asRequest = openRequest({ ...sealedReply, pairingId: 'A'.repeat(22) });
    expect(asRequest.ok).toBe(false);
    const request = sealPairRequest({ pairingId, devicePublicKey: device.publicKey, label: 'x' }, pairingKey, random);
    expect(openPairReply(request, pairingKey).ok).toBe(false);
  });

  it('refuses every single-bit flip of a request and of a reply', () => {
    const body = sealPairRequest({ pairingId, devicePublicKey: device.publicKey, label: 'Pixel' }, pairingKey, random);
    let tried = 0;
    for (const mutated of mutatedBodies(body)) {
      const r = openRequest(mutated);
      // A flip inside the pairing id names another link: the host finds no key for it.
      const sameLink = r.ok && r.value.pairingId.every((b, i) => b === pairingId[i]);
      expect(r.ok && sameLink).toBe(false);
      tried++;
    }
    expect(tried).toBeGreaterThan(100);
    for (const mutated of mutatedBodies(sealPairReply(reply, pairingKey, random))) {
      expect(openPairReply(mutated, pairingKey).ok).toBe(false);
    }
  });

  it('names a version mismatch', () => {
    const body = {
      ...sealPairRequest({ pairingId, devicePublicKey: device.publicKey, label: 'x' }, pairingKey, random),
      v: 2,
    };
    const r = decodePairRequestBody(body);
    expect(!r.ok && r.error.code).toBe('version-unsupported');
  });

  it('derives the same 6-digit code on both sides and a different one for another key', () => {
    const code = confirmationCode(host.publicKey, device.publicKey, pairingKey);
    expect(code).toMatch(/^\d{6}$/);
    expect(confirmationCode(host.publicKey, device.publicKey, pairingKey)).toBe(code);
    expect(confirmationCode(host.publicKey, generateBoxKeyPair(random).publicKey, pairingKey)).not.toBe(code);
    expect(formatConfirmationCode('482913')).toBe('482 913');
  });

  it('never throws on arbitrary bodies', () => {
    fc.assert(
      fc.property(fc.anything(), (input) => {
        expect(typeof decodePairRequestBody(input).ok).toBe('boolean');
        expect(typeof openPairReply(input, pairingKey).ok).toBe('boolean');
      }),
    );
  });
});
