import nacl from 'tweetnacl';

/** A source of random bytes. Injected wherever output depends on randomness, so tests can use
 * fixed vectors; production uses the platform CSPRNG through tweetnacl. */
export type RandomBytes = (length: number) => Uint8Array;

export const secureRandom: RandomBytes = (length) => nacl.randomBytes(length);
