import nacl from 'tweetnacl';
import { concatBytes, utf8Encode } from './encoding.js';
import type { FrameCipher } from './counted-frame.js';
import { CountedOpener, CountedSealer, putCounter } from './counted-frame.js';
import { MAX_FRAME_PLAINTEXT } from './limits.js';
import type { Secretbox } from './secretbox.js';
import { tweetnaclSecretbox } from './secretbox.js';
import { FRAME_HEADER_BYTES, FRAME_OVERHEAD } from './frame-sizes.js';
import { MessageKind } from './wire.js';

/**
 * Sealed frames on an established channel:
 *
 *   frame = 0x03 | keyTag(4) | counter(8, big-endian) | secretbox(plaintext)
 *   nonce = 16 zero bytes | counter(8)
 *
 * Each direction has its own key (from the handshake) and its own counter starting at 0, so a
 * nonce never repeats under a key. The receiver accepts only the next counter: anything else is
 * a replay or a reorder and the channel is closed. The key tag (the first 4 bytes of a hash of the
 * key, which says nothing about the key) lets a frame sealed under another key be told apart from
 * a tampered one.
 */

export { BOX_OVERHEAD, FRAME_HEADER_BYTES, FRAME_OVERHEAD } from './frame-sizes.js';

const TAG_LABEL = utf8Encode('tether/1 key tag');

export function keyTag(key: Uint8Array): Uint8Array {
  return nacl.hash(concatBytes(TAG_LABEL, key)).slice(0, 4);
}

/**
 * NaCl's secretbox works on buffers that start with 32 zero bytes (plaintext side) or 16 zero
 * bytes (ciphertext side). `nacl.secretbox` and `nacl.secretbox.open` copy into and out of such
 * buffers byte by byte, and the frame then copied the box once more behind its header: three
 * copies of every frame, which on 1 KiB frames cost about a quarter of the time (the profile of
 * `npm run bench -- protocol`). Here each direction makes one buffer and one copy, and the cipher
 * (secretbox.ts) runs in place.
 */
const ZERO_BYTES = 32;
const BOX_ZERO_BYTES = 16;
/** Where the frame starts inside the seal buffer: its header ends where the 16-byte tag begins. */
const FRAME_START = ZERO_BYTES - BOX_ZERO_BYTES - FRAME_HEADER_BYTES;

/** The device channel's cipher: secretbox in place, its nonce 16 zero bytes and the counter. */
function secretboxCipher(key: Uint8Array, box: Secretbox): FrameCipher {
  /** Rewritten for each frame, never shared across sealers and openers. */
  const nonce = new Uint8Array(nacl.secretbox.nonceLength);
  return {
    kind: MessageKind.Frame,
    tag: keyTag(key),
    overhead: FRAME_OVERHEAD,
    seal(counter, header, parts, length) {
      putCounter(nonce, 16, counter);
      const buffer = new Uint8Array(ZERO_BYTES + length);
      let at = ZERO_BYTES;
      for (const part of parts) {
        buffer.set(part, at);
        at += part.length;
      }
      box.seal(buffer, nonce, key);
      // The cipher left 16 zero bytes before the tag; the header overwrites the last 13 of them.
      const frame = buffer.subarray(FRAME_START);
      frame.set(header, 0);
      return frame;
    },
    open(counter, frame) {
      putCounter(nonce, 16, counter);
      // 16 zero bytes, then the box (tag and ciphertext); opened in place into the same buffer.
      const buffer = new Uint8Array(BOX_ZERO_BYTES + frame.length - FRAME_HEADER_BYTES);
      buffer.set(frame.subarray(FRAME_HEADER_BYTES), BOX_ZERO_BYTES);
      return box.open(buffer, nonce, key) ? buffer.subarray(ZERO_BYTES) : undefined;
    },
  };
}

/** Seals frames in order. A frame is a view into a buffer of its own (byteOffset 3): pass offset
 * and length along with it. */
export class FrameSealer extends CountedSealer {
  constructor(key: Uint8Array, maxPlaintext = MAX_FRAME_PLAINTEXT, box: Secretbox = tweetnaclSecretbox) {
    super(secretboxCipher(key, box), maxPlaintext);
  }
}

/**
 * Opens frames in order. After the first refusal the opener is closed for good and refuses
 * everything (`channel-closed`): the caller must drop the connection.
 */
export class FrameOpener extends CountedOpener {
  constructor(key: Uint8Array, maxPlaintext = MAX_FRAME_PLAINTEXT, box: Secretbox = tweetnaclSecretbox) {
    super(secretboxCipher(key, box), maxPlaintext, { frame: 'sealed frame', channel: 'channel' });
  }
}
