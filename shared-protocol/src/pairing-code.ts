import nacl from 'tweetnacl';
import { concatBytes, utf8Encode } from './encoding.js';
import { BugError } from './errors.js';
import { KEY_BYTES } from './key-sizes.js';

/**
 * The 6-digit code both screens show, made by commit-then-reveal (the pattern of Bluetooth
 * numeric comparison and ZRTP short authentication strings; docs/protocol.md, "Pairing"):
 *
 *   commitment = SHA-512("tether/2 pairing commitment" | devicePublicKey | deviceNonce)[0..32]
 *   code       = SHA-512("tether/2 pairing code" | hostBoxPublicKey | devicePublicKey | pairingKey
 *                        | deviceNonce | hostNonce)[0..5] as a number, mod 10^6
 *
 * The device sends the commitment first; the host answers with its fresh nonce; only then does the
 * device reveal its key and nonce. Whoever sends a key has fixed it (and its nonce) before the
 * host's nonce exists, so nobody can search for a key whose code matches the phone's: each try
 * matches with probability one in a million, and each is a request shown at the computer.
 */

/** Bytes of each side's pairing nonce. */
export const PAIRING_NONCE_BYTES = 32;
/** Bytes of the device's commitment: 256 bits, so it cannot be opened to another key. */
export const PAIRING_COMMITMENT_BYTES = 32;

const COMMITMENT_LABEL = utf8Encode('tether/2 pairing commitment');
const CODE_LABEL = utf8Encode('tether/2 pairing code');

/** The device's commitment to its public key and nonce (both fixed length: no ambiguity). */
export function pairingCommitment(devicePublicKey: Uint8Array, deviceNonce: Uint8Array): Uint8Array {
  expectLength('device key', devicePublicKey, KEY_BYTES);
  expectLength('device nonce', deviceNonce, PAIRING_NONCE_BYTES);
  return nacl.hash(concatBytes(COMMITMENT_LABEL, devicePublicKey, deviceNonce)).slice(0, PAIRING_COMMITMENT_BYTES);
}

export interface ConfirmationCodeInputs {
  hostBoxPublicKey: Uint8Array;
  devicePublicKey: Uint8Array;
  pairingKey: Uint8Array;
  deviceNonce: Uint8Array;
  hostNonce: Uint8Array;
}

/** The 6-digit code, from both keys, the link key and both nonces. */
export function confirmationCode(inputs: ConfirmationCodeInputs): string {
  expectLength('host key', inputs.hostBoxPublicKey, KEY_BYTES);
  expectLength('device key', inputs.devicePublicKey, KEY_BYTES);
  expectLength('pairing key', inputs.pairingKey, KEY_BYTES);
  expectLength('device nonce', inputs.deviceNonce, PAIRING_NONCE_BYTES);
  expectLength('host nonce', inputs.hostNonce, PAIRING_NONCE_BYTES);
  const digest = nacl.hash(
    concatBytes(
      CODE_LABEL,
      inputs.hostBoxPublicKey,
      inputs.devicePublicKey,
      inputs.pairingKey,
      inputs.deviceNonce,
      inputs.hostNonce,
    ),
  );
  // 40 bits reduced mod 10^6: the bias (< 2^-20) is far below what a person could notice.
  let n = 0;
  for (let i = 0; i < 5; i++) n = n * 256 + digest[i]!;
  return String(n % 1_000_000).padStart(6, '0');
}

/** "482913" → "482 913", as both screens show it. */
export function formatConfirmationCode(code: string): string {
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

function expectLength(name: string, bytes: Uint8Array, length: number): void {
  // Callers pass decoded, length-checked fields: a wrong length here is a bug, not input.
  if (bytes.length !== length) throw new BugError(`${name} must be ${length} bytes, got ${bytes.length}`);
}
