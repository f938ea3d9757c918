/** Every copy of `bytes` with exactly one bit flipped. */
export function* bitFlips(bytes: Uint8Array): Generator<{ index: number; bit: number; mutated: Uint8Array }> {
  for (let index = 0; index < bytes.length; index++) {
    for (let bit = 0; bit < 8; bit++) {
      const mutated = bytes.slice();
      mutated[index]! ^= 1 << bit;
      yield { index, bit, mutated };
    }
  }
}

/** Uniform numbers in [0, 1): `Math.random` in a fuzzer, a seeded source in tests. */
export type UnitRandom = () => number;

/** How a fuzzer mutates its seeds. */
export interface MutationProfile {
  /** Chance (0–1) that a mutation is fresh random bytes rather than edits of the seed. */
  randomChance: number;
  /** Fresh random bytes are 0 to this many bytes long. */
  randomMaxBytes: number;
  /** Edits per mutation: 1 to this many. */
  maxEdits: number;
  /** Whether an edit may insert a copy of the seed's first bytes (a repeated header). */
  repeatHead: boolean;
}

/** The protocol fuzzer's decoders: small inputs, up to four edits. */
export const PROTOCOL_MUTATIONS: MutationProfile = {
  randomChance: 0.15,
  randomMaxBytes: 300,
  maxEdits: 4,
  repeatHead: true,
};

/** The remote fuzzer's bodies and frames: mostly close to a genuine message. */
export const REMOTE_MUTATIONS: MutationProfile = {
  randomChance: 0.1,
  randomMaxBytes: 400,
  maxEdits: 3,
  repeatHead: false,
};

function randomBytes(length: number, random: UnitRandom): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(random() * 256);
  return out;
}

/**
 * Tries before `mutate` gives up on random edits and appends a byte instead. Edits come back
 * unchanged about 1.2–2.5 times in 10,000 (two flips of the same bit, an empty insert, random
 * bytes equal to a tiny seed), so a second try nearly always does; 16 is far past any real need.
 */
export const MUTATION_ATTEMPTS = 16;

/**
 * A copy of `seed` with a few random edits (bit flips, inserted and deleted bytes), or random
 * bytes; never equal to `seed`. A fuzzer that sends an unchanged seal sends a genuine message,
 * and would report it as a forgery that took effect.
 */
export function mutate(seed: Uint8Array, random: UnitRandom = Math.random, profile = PROTOCOL_MUTATIONS): Uint8Array {
  for (let attempt = 0; attempt < MUTATION_ATTEMPTS; attempt++) {
    const mutated = mutateOnce(seed, random, profile);
    if (!sameBytes(mutated, seed)) return mutated;
  }
  const longer = new Uint8Array(seed.length + 1);
  longer.set(seed);
  longer[seed.length] = Math.floor(random() * 256);
  return longer;
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function mutateOnce(seed: Uint8Array, random: UnitRandom, profile: MutationProfile): Uint8Array {
  if (random() < profile.randomChance) return randomBytes(Math.floor(random() * profile.randomMaxBytes), random);
  const copy = Array.from(seed);
  const edits = 1 + Math.floor(random() * profile.maxEdits);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (copy.length + 1));
    const kind = random();
    if (kind < 0.5 && copy.length > 0) copy[at % copy.length]! ^= 1 << Math.floor(random() * 8);
    else if (kind < 0.7) copy.splice(at, 0, Math.floor(random() * 256));
    else if (kind < 0.85 || !profile.repeatHead) copy.splice(at, 1 + Math.floor(random() * 8));
    else copy.splice(at, 0, ...copy.slice(0, Math.floor(random() * 16)));
  }
  return Uint8Array.from(copy);
}
