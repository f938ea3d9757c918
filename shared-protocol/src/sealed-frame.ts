import nacl from 'tweetnacl';
import { concatBytes, readUint64, utf8Encode, writeUint64 } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';
import { MAX_FRAME_PLAINTEXT } from './limits.js';
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

export const FRAME_HEADER_BYTES = 1 + 4 + 8;
export const FRAME_OVERHEAD = FRAME_HEADER_BYTES + nacl.secretbox.overheadLength;

const TAG_LABEL = utf8Encode('tether/1 key tag');

export function keyTag(key: Uint8Array): Uint8Array {
  return nacl.hash(concatBytes(TAG_LABEL, key)).slice(0, 4);
}

function counterNonce(counter: number): Uint8Array {
  const nonce = new Uint8Array(nacl.secretbox.nonceLength);
  nonce.set(writeUint64(counter), 16);
  return nonce;
}

export class FrameSealer {
  private counter = 0;
  private readonly tag: Uint8Array;

  constructor(
    private readonly key: Uint8Array,
    private readonly maxPlaintext = MAX_FRAME_PLAINTEXT,
  ) {
    this.tag = keyTag(key);
  }

  seal(plaintext: Uint8Array): Result<Uint8Array> {
    if (plaintext.length > this.maxPlaintext) {
      return fail('frame-too-large', `frame of ${plaintext.length} bytes is over the ${this.maxPlaintext}-byte limit`);
    }
    const counter = this.counter++;
    const box = nacl.secretbox(plaintext, counterNonce(counter), this.key);
    return ok(concatBytes(Uint8Array.of(MessageKind.Frame), this.tag, writeUint64(counter), box));
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

  constructor(
    private readonly key: Uint8Array,
    private readonly maxPlaintext = MAX_FRAME_PLAINTEXT,
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
    const plain = nacl.secretbox.open(frame.subarray(FRAME_HEADER_BYTES), counterNonce(counter), this.key);
    if (!plain) return fail('frame-tampered', 'frame failed authentication');
    this.expected++;
    return ok(plain);
  }

  get received(): number {
    return this.expected;
  }

  get isClosed(): boolean {
    return this.closed;
  }
}
