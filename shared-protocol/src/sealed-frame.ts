import nacl from 'tweetnacl';
import { concatBytes, readUint64, utf8Encode } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
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

/** Writes `counter` (a non-negative safe integer) big-endian into 8 bytes at `offset`. */
function putCounter(into: Uint8Array, offset: number, counter: number): void {
  const high = Math.floor(counter / 0x1_0000_0000);
  const low = counter >>> 0;
  into[offset] = high >>> 24;
  into[offset + 1] = (high >>> 16) & 0xff;
  into[offset + 2] = (high >>> 8) & 0xff;
  into[offset + 3] = high & 0xff;
  into[offset + 4] = low >>> 24;
  into[offset + 5] = (low >>> 16) & 0xff;
  into[offset + 6] = (low >>> 8) & 0xff;
  into[offset + 7] = low & 0xff;
}

export class FrameSealer {
  private counter = 0;
  private readonly tag: Uint8Array;
  /** 16 zero bytes and the counter: rewritten for each frame, never shared across sealers. */
  private readonly nonce = new Uint8Array(nacl.secretbox.nonceLength);

  constructor(
    private readonly key: Uint8Array,
    private readonly maxPlaintext = MAX_FRAME_PLAINTEXT,
    private readonly box: Secretbox = tweetnaclSecretbox,
  ) {
    this.tag = keyTag(key);
  }

  /** The frame is a view into a buffer of its own (byteOffset 3): pass offset and length along with it. */
  seal(plaintext: Uint8Array): Result<Uint8Array> {
    if (plaintext.length > this.maxPlaintext) {
      return fail('frame-too-large', `frame of ${plaintext.length} bytes is over the ${this.maxPlaintext}-byte limit`);
    }
    if (this.counter >= Number.MAX_SAFE_INTEGER) return fail('channel-closed', 'frame counter exhausted');
    const counter = this.counter++;
    putCounter(this.nonce, 16, counter);
    const buffer = new Uint8Array(ZERO_BYTES + plaintext.length);
    buffer.set(plaintext, ZERO_BYTES);
    this.box.seal(buffer, this.nonce, this.key);
    // The cipher left 16 zero bytes before the tag; the header overwrites the last 13 of them.
    const frame = buffer.subarray(FRAME_START);
    frame[0] = MessageKind.Frame;
    frame.set(this.tag, 1);
    putCounter(frame, 5, counter);
    return ok(frame);
  }

  /** Frames sealed so far. */
  get sent(): number {
    return this.counter;
  }
}

/**
 * Opens frames in order. After the first refusal the opener is closed for good and refuses
 * everything (`channel-closed`): the caller must drop the connection.
 */
export class FrameOpener {
  private expected = 0;
  private closed = false;
  private readonly tag: Uint8Array;
  private readonly nonce = new Uint8Array(nacl.secretbox.nonceLength);

  constructor(
    private readonly key: Uint8Array,
    private readonly maxPlaintext = MAX_FRAME_PLAINTEXT,
    private readonly box: Secretbox = tweetnaclSecretbox,
  ) {
    this.tag = keyTag(key);
  }

  open(frame: Uint8Array): Result<Uint8Array> {
    if (this.closed) return fail('channel-closed', 'the channel was closed after an earlier refusal');
    const result = this.check(frame);
    if (!result.ok) this.closed = true;
    return result;
  }

  private check(frame: Uint8Array): Result<Uint8Array> {
    if (frame.length < FRAME_OVERHEAD || frame[0] !== MessageKind.Frame) {
      return fail('frame-malformed', 'not a sealed frame');
    }
    if (frame.length - FRAME_OVERHEAD > this.maxPlaintext) {
      return fail('frame-too-large', `frame is over the ${this.maxPlaintext}-byte limit`);
    }
    if (!nacl.verify(frame.subarray(1, 5), this.tag)) return fail('frame-wrong-key', 'frame sealed under another key');
    const counter = readUint64(frame, 5);
    if (counter === undefined) return fail('frame-malformed', 'frame counter out of range');
    if (counter < this.expected) return fail('frame-replayed', `frame ${counter} was already received`);
    if (counter > this.expected)
      return fail('frame-reordered', `frame ${counter} arrived before frame ${this.expected}`);
    putCounter(this.nonce, 16, counter);
    // 16 zero bytes, then the box (tag and ciphertext); opened in place into the same buffer.
    const buffer = new Uint8Array(BOX_ZERO_BYTES + frame.length - FRAME_HEADER_BYTES);
    buffer.set(frame.subarray(FRAME_HEADER_BYTES), BOX_ZERO_BYTES);
    if (!this.box.open(buffer, this.nonce, this.key)) {
      return fail('frame-tampered', 'frame failed authentication');
    }
    this.expected++;
    return ok(buffer.subarray(ZERO_BYTES));
  }

  get received(): number {
    return this.expected;
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
