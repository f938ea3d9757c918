import type { FrameCipher } from '../counted-frame.js';
import { COUNTED_HEADER_BYTES, CountedOpener, CountedSealer, putCounter } from '../counted-frame.js';
import { keyTag } from '../sealed-frame.js';
import type { LinkAead } from './link-aead.js';
import { LINK_NONCE_BYTES, LINK_TAG_BYTES } from './link-aead.js';

/**
 * Sealed frames on a machine link (machine-link version 2):
 *
 *   frame = 0x23 | keyTag(4) | counter(8, big-endian) | ChaCha20-Poly1305(plaintext) | tag(16)
 *   aad   = the 13 header bytes
 *   nonce = iv(12) XOR (4 zero bytes | counter(8, big-endian))
 *
 * Each direction has its own key and its own iv (link-handshake.ts derives both with HKDF), and
 * its own counter from 0, so a nonce never repeats under a key; as in TLS 1.3, the counter is
 * mixed into the iv rather than sent as the nonce. The receiver accepts only the next counter:
 * anything else is a replay or a reorder, and the link ends. The header is authenticated, so a
 * counter or key tag changed on the way fails as `frame-tampered`. The key tag (4 bytes of a hash
 * of the key, which says nothing about it) tells a frame under another key from a tampered one.
 */

export const LINK_FRAME_KIND = 0x23;
export const LINK_FRAME_HEADER_BYTES = COUNTED_HEADER_BYTES;
export const LINK_FRAME_OVERHEAD = LINK_FRAME_HEADER_BYTES + LINK_TAG_BYTES;

/** One direction's secrets: the AEAD key and the iv its counter is mixed into. */
export interface LinkDirectionKeys {
  key: Uint8Array;
  iv: Uint8Array;
}

export interface LinkKeys {
  send: LinkDirectionKeys;
  receive: LinkDirectionKeys;
}

/**
 * One direction's cipher: ChaCha20-Poly1305 with the header as aad, and the nonce for a counter
 * (the iv's last 8 bytes XOR the counter) written into one buffer reused per frame.
 */
function linkCipher(aead: LinkAead, keys: LinkDirectionKeys): FrameCipher {
  if (keys.iv.length !== LINK_NONCE_BYTES) throw new RangeError(`a link iv is ${LINK_NONCE_BYTES} bytes`);
  const key = aead.key(keys.key);
  const iv = keys.iv.slice();
  const nonce = new Uint8Array(LINK_NONCE_BYTES);
  const nonceFor = (counter: number): Uint8Array => {
    nonce.fill(0, 0, 4);
    putCounter(nonce, 4, counter);
    for (let i = 0; i < LINK_NONCE_BYTES; i++) nonce[i]! ^= iv[i]!;
    return nonce;
  };
  return {
    kind: LINK_FRAME_KIND,
    tag: keyTag(keys.key),
    overhead: LINK_FRAME_OVERHEAD,
    seal(counter, header, parts, length) {
      const frame = new Uint8Array(LINK_FRAME_OVERHEAD + length);
      frame.set(header, 0);
      key.seal(nonceFor(counter), frame.subarray(0, LINK_FRAME_HEADER_BYTES), parts, frame, LINK_FRAME_HEADER_BYTES);
      return frame;
    },
    open: (counter, frame) =>
      key.open(nonceFor(counter), frame.subarray(0, LINK_FRAME_HEADER_BYTES), frame.subarray(LINK_FRAME_HEADER_BYTES)),
  };
}

export class LinkFrameSealer extends CountedSealer {
  constructor(aead: LinkAead, keys: LinkDirectionKeys, maxPlaintext: number) {
    super(linkCipher(aead, keys), maxPlaintext);
  }
}

/**
 * Opens frames in order. After the first refusal the opener is closed for good and refuses
 * everything (`channel-closed`): the caller ends the link.
 */
export class LinkFrameOpener extends CountedOpener {
  constructor(aead: LinkAead, keys: LinkDirectionKeys, maxPlaintext: number) {
    super(linkCipher(aead, keys), maxPlaintext, { frame: 'sealed machine-link frame', channel: 'link' });
  }
}
