import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { readUint64 } from '../encoding.js';
import { keyTag } from '../sealed-frame.js';
import type { LinkAead, LinkAeadKey } from './link-aead.js';
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
export const LINK_FRAME_HEADER_BYTES = 1 + 4 + 8;
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

/**
 * One direction's prepared secrets: the AEAD key, the key tag frames carry, and the nonce for a
 * counter (the iv's last 8 bytes XOR the counter), written into one buffer reused per frame.
 */
class Direction {
  readonly key: LinkAeadKey;
  readonly tag: Uint8Array;
  private readonly iv: Uint8Array;
  private readonly nonce = new Uint8Array(LINK_NONCE_BYTES);

  constructor(aead: LinkAead, keys: LinkDirectionKeys) {
    if (keys.iv.length !== LINK_NONCE_BYTES) throw new RangeError(`a link iv is ${LINK_NONCE_BYTES} bytes`);
    this.key = aead.key(keys.key);
    this.tag = keyTag(keys.key);
    this.iv = keys.iv.slice();
  }

  nonceFor(counter: number): Uint8Array {
    this.nonce.fill(0, 0, 4);
    putCounter(this.nonce, 4, counter);
    for (let i = 0; i < LINK_NONCE_BYTES; i++) this.nonce[i]! ^= this.iv[i]!;
    return this.nonce;
  }
}

export class LinkFrameSealer {
  private counter = 0;
  private readonly direction: Direction;

  constructor(
    aead: LinkAead,
    keys: LinkDirectionKeys,
    private readonly maxPlaintext: number,
  ) {
    this.direction = new Direction(aead, keys);
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
    const frame = new Uint8Array(LINK_FRAME_OVERHEAD + length);
    frame[0] = LINK_FRAME_KIND;
    frame.set(this.direction.tag, 1);
    putCounter(frame, 5, counter);
    const nonce = this.direction.nonceFor(counter);
    this.direction.key.seal(nonce, frame.subarray(0, LINK_FRAME_HEADER_BYTES), parts, frame, LINK_FRAME_HEADER_BYTES);
    return ok(frame);
  }

  /** Frames sealed so far. */
  get sent(): number {
    return this.counter;
  }
}

/**
 * Opens frames in order. After the first refusal the opener is closed for good and refuses
 * everything (`channel-closed`): the caller ends the link.
 */
export class LinkFrameOpener {
  private expected = 0;
  private closed = false;
  private readonly direction: Direction;

  constructor(
    aead: LinkAead,
    keys: LinkDirectionKeys,
    private readonly maxPlaintext: number,
  ) {
    this.direction = new Direction(aead, keys);
  }

  open(frame: Uint8Array): Result<Uint8Array> {
    if (this.closed) return fail('channel-closed', 'the link was closed after an earlier refusal');
    const result = this.check(frame);
    if (!result.ok) this.closed = true;
    return result;
  }

  private check(frame: Uint8Array): Result<Uint8Array> {
    if (frame.length < LINK_FRAME_OVERHEAD || frame[0] !== LINK_FRAME_KIND) {
      return fail('frame-malformed', 'not a sealed machine-link frame');
    }
    if (frame.length - LINK_FRAME_OVERHEAD > this.maxPlaintext) {
      return fail('frame-too-large', `frame is over the ${this.maxPlaintext}-byte limit`);
    }
    for (let i = 0; i < 4; i++) {
      if (frame[1 + i] !== this.direction.tag[i]) return fail('frame-wrong-key', 'frame sealed under another key');
    }
    const counter = readUint64(frame, 5);
    if (counter === undefined) return fail('frame-malformed', 'frame counter out of range');
    if (counter < this.expected) return fail('frame-replayed', `frame ${counter} was already received`);
    if (counter > this.expected) {
      return fail('frame-reordered', `frame ${counter} arrived before frame ${this.expected}`);
    }
    const plain = this.direction.key.open(
      this.direction.nonceFor(counter),
      frame.subarray(0, LINK_FRAME_HEADER_BYTES),
      frame.subarray(LINK_FRAME_HEADER_BYTES),
    );
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
