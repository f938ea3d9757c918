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
