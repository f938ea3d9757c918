import nacl from 'tweetnacl';
import * as v from 'valibot';
import { fromBase64UrlExact, toBase64Url, toHex, utf8Encode, concatBytes } from './encoding.js';
import type { RandomBytes } from './random.js';
import { secureRandom } from './random.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';

import { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from './key-sizes.js';
export { DEVICE_ID_BYTES, HOST_ID_BYTES, KEY_BYTES } from './key-sizes.js';

export interface BoxKeyPair {
  publicKey: Uint8Array;
  secretKey: Uint8Array;
}

export interface SignKeyPair {
  publicKey: Uint8Array;
  /** 64 bytes: the 32-byte seed followed by the public key, as tweetnacl keeps it. */
  secretKey: Uint8Array;
}

/** The host's long-lived keys: X25519 for sealing, Ed25519 for proving itself to a relay. */
export interface HostIdentity {
  box: BoxKeyPair;
  sign: SignKeyPair;
  hostId: string;
}

export function boxKeyPairFromSecret(secretKey: Uint8Array): BoxKeyPair {
  return nacl.box.keyPair.fromSecretKey(secretKey);
}

export function generateBoxKeyPair(random: RandomBytes = secureRandom): BoxKeyPair {
  return boxKeyPairFromSecret(random(KEY_BYTES));
}

export function generateHostIdentity(random: RandomBytes = secureRandom): HostIdentity {
  return hostIdentityFromSeeds(random(KEY_BYTES), random(KEY_BYTES));
}

export function hostIdentityFromSeeds(boxSecret: Uint8Array, signSeed: Uint8Array): HostIdentity {
  const sign = nacl.sign.keyPair.fromSeed(signSeed);
  return { box: boxKeyPairFromSecret(boxSecret), sign, hostId: hostIdFromSignKey(sign.publicKey) };
}

/** hostId: base64url of the first 16 bytes of SHA-512 of the Ed25519 public key (22 chars). */
export function hostIdFromSignKey(signPublicKey: Uint8Array): string {
  return toBase64Url(nacl.hash(signPublicKey).subarray(0, HOST_ID_BYTES));
}

export function generateDeviceId(random: RandomBytes = secureRandom): string {
  return toBase64Url(random(DEVICE_ID_BYTES));
}

/**
 * A short fingerprint of a public key for people to compare by eye: the first 10 bytes of its
 * SHA-512 as five groups of four hex digits ("3f9a-1c2b-…"). Domain-separated so that it never
 * equals a hostId prefix or any other derived value.
 */
export function fingerprint(publicKey: Uint8Array): string {
  const digest = nacl.hash(concatBytes(utf8Encode('tether/1 fingerprint'), publicKey));
  const hex = toHex(digest.subarray(0, 10));
  return hex.match(/.{4}/g)!.join('-');
}

const key32 = v.pipe(v.string(), v.length(43));
const key64 = v.pipe(v.string(), v.length(86));

/** The host identity as kept in its key file (owner-only): the secrets, never the derived id. */
export const HostIdentityFileSchema = v.object({
  version: v.literal(1),
  boxSecretKey: key32,
  signSecretKey: key64,
});

export type HostIdentityFile = v.InferOutput<typeof HostIdentityFileSchema>;

export function encodeHostIdentity(identity: HostIdentity): HostIdentityFile {
  return {
    version: 1,
    boxSecretKey: toBase64Url(identity.box.secretKey),
    signSecretKey: toBase64Url(identity.sign.secretKey),
  };
}

/** Decodes a key file; refuses a file whose signing key halves disagree (a corrupted copy). */
export function decodeHostIdentity(input: unknown): Result<HostIdentity> {
  const parsed = v.safeParse(HostIdentityFileSchema, input);
  if (!parsed.success) return fail('malformed', 'host identity file has the wrong shape');
  const boxSecret = fromBase64UrlExact(parsed.output.boxSecretKey, KEY_BYTES);
  const signSecret = fromBase64UrlExact(parsed.output.signSecretKey, 64);
  if (!boxSecret || !signSecret) return fail('malformed', 'host identity file holds invalid keys');
  const identity = hostIdentityFromSeeds(boxSecret, signSecret.subarray(0, KEY_BYTES));
  if (toBase64Url(identity.sign.secretKey) !== parsed.output.signSecretKey) {
    return fail('malformed', 'host identity file signing key is inconsistent');
  }
  return ok(identity);
}
