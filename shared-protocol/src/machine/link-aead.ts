import { concatBytes, constantTimeEqual, fromHex, utf8Encode } from '../encoding.js';
import {
  CHACHA_KEY_BYTES,
  CHACHA_NONCE_BYTES,
  POLY1305_TAG_BYTES,
  chacha20Poly1305Open,
  chacha20Poly1305Seal,
} from '../chacha20-poly1305.js';

/**
 * The machine link's AEAD, ChaCha20-Poly1305 (RFC 8439), behind a port so that each runtime uses
 * its fastest one: OpenSSL through `node:crypto` on both ends of a real link (machine/src/link/
 * node-link-aead.ts), the plain TypeScript one here for the vectors and anywhere else. A program
 * chooses one at start (after `checkLinkAead` passed); the bytes on the wire are the same.
 *
 * Synchronous, like the X25519 port: a frame is sealed and opened inside a message handler, in
 * order. A key is prepared once per direction (`key`), so a native implementation parses it once.
 */
export interface LinkAead {
  /** For logs and benches: which implementation this is. */
  readonly name: string;
  key(raw: Uint8Array): LinkAeadKey;
}

export interface LinkAeadKey {
  /**
   * Seals the plaintext that is `parts` one after the other (a body chunk's header and its bytes,
   * never joined first), writing the ciphertext and then the 16-byte tag into `out` from `offset`.
   */
  seal(nonce: Uint8Array, aad: Uint8Array, parts: readonly Uint8Array[], out: Uint8Array, offset: number): void;
  /** The plaintext of `sealed` (ciphertext then tag), or undefined when it does not authenticate. */
  open(nonce: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | undefined;
}

export const LINK_KEY_BYTES = CHACHA_KEY_BYTES;
export const LINK_NONCE_BYTES = CHACHA_NONCE_BYTES;
export const LINK_TAG_BYTES = POLY1305_TAG_BYTES;

export const typescriptLinkAead: LinkAead = {
  name: 'typescript',
  key: (raw) => {
    const key = raw.slice();
    return {
      seal: (nonce, aad, parts, out, offset) =>
        out.set(chacha20Poly1305Seal(key, nonce, aad, concatBytes(...parts)), offset),
      open: (nonce, aad, sealed) => chacha20Poly1305Open(key, nonce, aad, sealed),
    };
  },
};

/** RFC 8439 §2.8.2: the AEAD's test vector. */
const VECTOR = {
  key: '808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f',
  nonce: '070000004041424344454647',
  aad: '50515253c0c1c2c3c4c5c6c7',
  plaintext:
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.",
  sealed:
    'd31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b' +
    '2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586ce' +
    'c64b6116' +
    '1ae10b594f09e26a7e902ecbd0600691',
};

/**
 * Whether an implementation gives RFC 8439's answer, opens it again and refuses it with one bit
 * changed: checked once before a program chooses it, so that an AEAD that differs is never used.
 */
export function checkLinkAead(aead: LinkAead): boolean {
  try {
    const hex = (text: string) => fromHex(text)!;
    const key = aead.key(hex(VECTOR.key));
    const [nonce, aad, plaintext] = [hex(VECTOR.nonce), hex(VECTOR.aad), utf8Encode(VECTOR.plaintext)];
    const out = new Uint8Array(3 + plaintext.length + LINK_TAG_BYTES);
    // In two parts, as a body chunk is sealed.
    key.seal(nonce, aad, [plaintext.subarray(0, 9), plaintext.subarray(9)], out, 3);
    if (!constantTimeEqual(out.subarray(3), hex(VECTOR.sealed))) return false;
    const opened = key.open(nonce, aad, out.subarray(3));
    if (!opened || !constantTimeEqual(opened, plaintext)) return false;
    const flipped = out.slice(3);
    flipped[flipped.length - 1]! ^= 1;
    return key.open(nonce, aad, flipped) === undefined && key.open(nonce, plaintext, out.subarray(3)) === undefined;
  } catch {
    return false;
  }
}
