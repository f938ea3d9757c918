import { constantTimeEqual, readUint64 } from './encoding.js';
import type { Result } from './errors.js';
import { fail, ok } from './errors.js';

/**
 * The core both kinds of sealed frame share (the device channel's, sealed-frame.ts, and the machine
 * link's, machine/link-frame.ts):
 *
 *   frame = kind(1) | keyTag(4) | counter(8, big-endian) | sealed plaintext and its 16-byte tag
 *
 * Each direction counts its frames from 0 under a key of its own, so a nonce made from the counter
 * never repeats under a key; the receiver accepts only the next counter (anything else is a replay
 * or a reorder) and after its first refusal refuses everything, so the caller ends the connection.
 * What differs between the kinds, the cipher and how the nonce comes from the counter, is a
 * `FrameCipher`.
 */
export const COUNTED_HEADER_BYTES = 1 + 4 + 8;

export interface FrameCipher {
  /** The frame's first byte. */
  readonly kind: number;
  /** The key tag frames carry (keyTag in sealed-frame.ts). */
  readonly tag: Uint8Array;
  /** Header and authentication tag: a frame's length beyond its plaintext. */
  readonly overhead: number;
  /** The frame for `parts` (`length` bytes in all), carrying `header` (kind, key tag, counter). */
  seal(counter: number, header: Uint8Array, parts: readonly Uint8Array[], length: number): Uint8Array;
  /** The plaintext of `frame` (its header already checked), or undefined when it does not authenticate. */
  open(counter: number, frame: Uint8Array): Uint8Array | undefined;
}

/** Writes `counter` (a non-negative safe integer) big-endian into 8 bytes at `offset`. */
export function putCounter(into: Uint8Array, offset: number, counter: number): void {
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

export class CountedSealer {
  private counter = 0;
  /** Kind and key tag written once; the counter rewritten for each frame. */
  private readonly header = new Uint8Array(COUNTED_HEADER_BYTES);

  constructor(
    private readonly cipher: FrameCipher,
    private readonly maxPlaintext: number,
  ) {
    this.header[0] = cipher.kind;
    this.header.set(cipher.tag, 1);
  }

  /** Seals `plaintext`, or the plaintext that is its parts one after the other. */
  seal(plaintext: Uint8Array | readonly Uint8Array[]): Result<Uint8Array> {
    const parts = plaintext instanceof Uint8Array ? [plaintext] : plaintext;
    let length = 0;
    for (const part of parts) length += part.length;
    if (length > this.maxPlaintext) {
      return fail('frame-too-large', `frame of ${length} bytes is over the ${this.maxPlaintext}-byte limit`);
    }
    if (this.counter >= Number.MAX_SAFE_INTEGER) return fail('channel-closed', 'frame counter exhausted');
    const counter = this.counter++;
    putCounter(this.header, 5, counter);
    return ok(this.cipher.seal(counter, this.header, parts, length));
  }

  /** Frames sealed so far. */
  get sent(): number {
    return this.counter;
  }
}

/** How an opener names what it refuses: `frame` for a frame of another kind, `channel` when closed. */
export interface OpenerWords {
  frame: string;
  channel: string;
}

/** Opens frames in order; closed for good after its first refusal (`channel-closed`). */
export class CountedOpener {
  private expected = 0;
  private closed = false;

  constructor(
    private readonly cipher: FrameCipher,
    private readonly maxPlaintext: number,
    private readonly words: OpenerWords,
  ) {}

  open(frame: Uint8Array): Result<Uint8Array> {
    if (this.closed) return fail('channel-closed', `the ${this.words.channel} was closed after an earlier refusal`);
    const result = this.check(frame);
    if (!result.ok) this.closed = true;
    return result;
  }

  private check(frame: Uint8Array): Result<Uint8Array> {
    const { cipher } = this;
    if (frame.length < cipher.overhead || frame[0] !== cipher.kind) {
      return fail('frame-malformed', `not a ${this.words.frame}`);
    }
    if (frame.length - cipher.overhead > this.maxPlaintext) {
      return fail('frame-too-large', `frame is over the ${this.maxPlaintext}-byte limit`);
    }
    if (!constantTimeEqual(frame.subarray(1, 5), cipher.tag)) {
      return fail('frame-wrong-key', 'frame sealed under another key');
    }
    const counter = readUint64(frame, 5);
    if (counter === undefined) return fail('frame-malformed', 'frame counter out of range');
    if (counter < this.expected) return fail('frame-replayed', `frame ${counter} was already received`);
    if (counter > this.expected) {
      return fail('frame-reordered', `frame ${counter} arrived before frame ${this.expected}`);
    }
    const plain = cipher.open(counter, frame);
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
