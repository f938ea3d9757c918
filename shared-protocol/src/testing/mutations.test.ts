import { describe, expect, it } from 'vitest';
import { utf8Encode } from '../encoding.js';
import type { MutationProfile, UnitRandom } from './mutations.js';
import { PROTOCOL_MUTATIONS, REMOTE_MUTATIONS, mutate } from './mutations.js';
import { seededUnitRandom } from './seeded-random.js';

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Plays the given numbers in order, then keeps answering `rest`. */
function scripted(numbers: number[], rest = 0.3): UnitRandom {
  let i = 0;
  return () => numbers[i++] ?? rest;
}

describe('fuzz mutations', () => {
  const seeds = [
    utf8Encode('{"t":"req","id":1,"method":"sessions.create","params":{"cwd":"/w","text":"forged"}}'),
    Uint8Array.from({ length: 120 }, (_, i) => (i * 37) & 255),
    new Uint8Array([7]),
    new Uint8Array(0),
  ];

  it('never hands back the seed, even when two edits cancel out', () => {
    // Not random: one edit, then another. Both flip bit 3 of byte 5.
    const seed = seeds[1]!;
    const flipByte5Bit3 = [0.5 / seed.length + 5 / (seed.length + 1), 0.1, 3.5 / 8];
    const random = scripted([0.9, 1.5 / PROTOCOL_MUTATIONS.maxEdits, ...flipByte5Bit3, ...flipByte5Bit3]);
    expect(same(mutate(seed, random, PROTOCOL_MUTATIONS), seed)).toBe(false);
  });

  it.each([
    ['protocol', PROTOCOL_MUTATIONS],
    ['remote', REMOTE_MUTATIONS],
  ] as [string, MutationProfile][])(
    'over many seeds and calls, every %s mutation differs from its seed',
    (_, profile) => {
      let unchanged = 0;
      for (let s = 0; s < 20; s++) {
        const random = seededUnitRandom(s);
        for (const seed of seeds) {
          for (let i = 0; i < 2_500; i++) if (same(mutate(seed, random, profile), seed)) unchanged++;
        }
      }
      // 200,000 mutations. Without the check, a real seed came back unchanged 1.2–2.5 times in
      // 10,000, and the empty seed far more often.
      expect(unchanged).toBe(0);
    },
  );

  it('still mutates (changes are small and varied, not always the same)', () => {
    const random = seededUnitRandom(99);
    const seed = seeds[0]!;
    const outputs = new Set<string>();
    for (let i = 0; i < 200; i++) outputs.add(Array.from(mutate(seed, random)).join(','));
    expect(outputs.size).toBeGreaterThan(190);
  });
});
