import nacl from 'tweetnacl';
import { concatBytes, utf8Encode, writeUint64 } from '../encoding.js';
import type { RandomBytes } from '../random.js';

/**
 * Deterministic bytes for test vectors: SHA-512(seed | counter) blocks, so the same seed always
 * gives the same keys and nonces on every runtime. Never for real keys.
 */
export function seededRandom(seed: string): RandomBytes {
  const seedBytes = utf8Encode(seed);
  let counter = 0;
  let buffer: Uint8Array = new Uint8Array(0);
  return (length) => {
    while (buffer.length < length)
      buffer = concatBytes(buffer, nacl.hash(concatBytes(seedBytes, writeUint64(counter++))));
    const out = buffer.slice(0, length);
    buffer = buffer.slice(length);
    return out;
  };
}

/**
 * Deterministic numbers in [0, 1) from a 32-bit seed (mulberry32): fast enough to drive millions
 * of fuzz mutations in a test, and the same sequence on every runtime. Never for keys.
 */
export function seededUnitRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
