import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BugError } from './errors.js';
import type { ConfirmationCodeInputs } from './pairing-code.js';
import { PAIRING_NONCE_BYTES, confirmationCode, formatConfirmationCode, pairingCommitment } from './pairing-code.js';
import { seededRandom } from './testing/seeded-random.js';

/**
 * The property commit-then-reveal exists for: whoever chooses a device key and nonce does so
 * before the host's nonce exists, so the code they will get is out of their hands. Runs are
 * seeded (fast-check `seed`, seeded byte streams): the same inputs every run, nothing to flake.
 */

const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });
const SEED = 0x7e7_4e5;

function code(inputs: ConfirmationCodeInputs): number {
  return Number(confirmationCode(inputs));
}

describe('pairing code', () => {
  it('is six digits, the same on both sides, and changes with every input', () => {
    const r = seededRandom('pairing code basics');
    const inputs = {
      hostBoxPublicKey: r(32),
      devicePublicKey: r(32),
      pairingKey: r(32),
      deviceNonce: r(32),
      hostNonce: r(32),
    };
    const c = confirmationCode(inputs);
    expect(c).toMatch(/^\d{6}$/);
    expect(confirmationCode({ ...inputs })).toBe(c);
    for (const field of Object.keys(inputs) as (keyof typeof inputs)[]) {
      expect(confirmationCode({ ...inputs, [field]: r(32) }), field).not.toBe(c);
    }
    expect(formatConfirmationCode('482913')).toBe('482 913');
  });

  it('refuses inputs of the wrong length as a bug, not as a code', () => {
    const r = seededRandom('pairing code lengths');
    expect(() => pairingCommitment(r(31), r(32))).toThrow(BugError);
    expect(() =>
      confirmationCode({
        hostBoxPublicKey: r(32),
        devicePublicKey: r(32),
        pairingKey: r(32),
        deviceNonce: r(32),
        hostNonce: r(16),
      }),
    ).toThrow(BugError);
  });

  it('binds the commitment to the key and the nonce', () => {
    fc.assert(
      fc.property(bytes32, bytes32, bytes32, (key, nonce, other) => {
        const commitment = pairingCommitment(key, nonce);
        expect(commitment).toHaveLength(32);
        expect(pairingCommitment(key, nonce)).toEqual(commitment);
        fc.pre(!other.every((b, i) => b === key[i]) && !other.every((b, i) => b === nonce[i]));
        expect(pairingCommitment(other, nonce)).not.toEqual(commitment);
        expect(pairingCommitment(key, other)).not.toEqual(commitment);
      }),
      { seed: SEED, numRuns: 100 },
    );
  });

  it('spreads the code of a fixed key and nonce uniformly over the host nonces it may meet', () => {
    const SAMPLES = 20_000;
    fc.assert(
      fc.property(bytes32, bytes32, bytes32, bytes32, fc.string(), (host, device, pairingKey, deviceNonce, seed) => {
        const hostNonces = seededRandom(`host nonces ${seed}`);
        const counts = new Map<number, number>();
        const buckets = new Array<number>(100).fill(0);
        for (let i = 0; i < SAMPLES; i++) {
          const c = code({
            hostBoxPublicKey: host,
            devicePublicKey: device,
            pairingKey,
            deviceNonce,
            hostNonce: hostNonces(PAIRING_NONCE_BYTES),
          });
          counts.set(c, (counts.get(c) ?? 0) + 1);
          buckets[Math.floor(c / 10_000)]!++;
        }
        // No code value dominates: 20,000 draws from a million values repeat a value at most a
        // few times (four or more of one value has a chance near 10^-5).
        expect(Math.max(...counts.values())).toBeLessThanOrEqual(4);
        // And the leading two digits are flat: chi-square with 99 degrees of freedom stays under
        // 160 (p ≈ 10^-4) for a uniform spread.
        const expected = SAMPLES / buckets.length;
        const chiSquare = buckets.reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
        expect(chiSquare).toBeLessThan(160);
      }),
      { seed: SEED, numRuns: 4, endOnFailure: true },
    );
  });

  it('cannot be aimed at: a search over device keys without the host nonce does no better than chance', () => {
    // The attacker has the link (host key, pairing key) and even knows the phone's code exactly.
    // Aiming at all six digits would take a million tries per trial, so each trial aims at the
    // last two: the attacker searches device keys and nonces until one gives the target's last
    // two digits under its best guess of the host nonce, then commits to that one. The host's
    // real nonce is drawn afterwards. Were the code aimable (as when it depended only on keys
    // that the sender picks), every trial would hit; here hits stay at the chance rate of 1/100.
    const TRIALS = 150;
    fc.assert(
      fc.property(bytes32, bytes32, bytes32, fc.string(), (host, pairingKey, guessedHostNonce, seed) => {
        const r = seededRandom(`attacker ${seed}`);
        let hits = 0;
        for (let trial = 0; trial < TRIALS; trial++) {
          const target = r(1)[0]! % 100;
          let candidate: { key: Uint8Array; nonce: Uint8Array } | undefined;
          for (let tries = 0; !candidate && tries < 5_000; tries++) {
            // Any 32 bytes stand for a key here: making real key pairs changes nothing but the time.
            const key = r(32);
            const nonce = r(PAIRING_NONCE_BYTES);
            const aimed = code({
              hostBoxPublicKey: host,
              devicePublicKey: key,
              pairingKey,
              deviceNonce: nonce,
              hostNonce: guessedHostNonce,
            });
            if (aimed % 100 === target) candidate = { key, nonce };
          }
          if (!candidate) throw new Error('the search found nothing in 5,000 tries');
          const shown = code({
            hostBoxPublicKey: host,
            devicePublicKey: candidate.key,
            pairingKey,
            deviceNonce: candidate.nonce,
            hostNonce: r(PAIRING_NONCE_BYTES),
          });
          if (shown % 100 === target) hits++;
        }
        // Chance gives 1.5 hits in 150; 12 or more has a chance below 10^-6. Aiming would give 150.
        expect(hits).toBeLessThan(12);
      }),
      { seed: SEED, numRuns: 3, endOnFailure: true },
    );
  });
});
