import { utf8Decode, utf8Encode } from '../encoding.js';

/**
 * Reads fixed-layout binary messages front to back. Every read returns undefined past the end
 * (never throws), so a decoder checks once and answers with a typed error.
 */
export class ByteReader {
  private offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(): number | undefined {
    return this.offset < this.bytes.length ? this.bytes[this.offset++] : undefined;
  }

  u16(): number | undefined {
    if (this.remaining < 2) return undefined;
    const v = (this.bytes[this.offset]! << 8) | this.bytes[this.offset + 1]!;
    this.offset += 2;
    return v;
  }

  u32(): number | undefined {
    if (this.remaining < 4) return undefined;
    const b = this.bytes;
    const o = this.offset;
    this.offset += 4;
    return b[o]! * 0x1000000 + ((b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!);
  }

  /** A view of the next `length` bytes (no copy). */
  take(length: number): Uint8Array | undefined {
    if (length < 0 || this.remaining < length) return undefined;
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** A view of everything left (no copy). */
  rest(): Uint8Array {
    const out = this.bytes.subarray(this.offset);
    this.offset = this.bytes.length;
    return out;
  }

  /** A string of `length` bytes of strict UTF-8; undefined if short or not valid UTF-8. */
  text(length: number): string | undefined {
    const raw = this.take(length);
    return raw && utf8Decode(raw);
  }
}

/** Builds a message of known size in one allocation. */
export class ByteWriter {
  private offset = 0;
  readonly bytes: Uint8Array;

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }

  u8(v: number): this {
    this.bytes[this.offset++] = v;
    return this;
  }

  u16(v: number): this {
    this.bytes[this.offset++] = (v >>> 8) & 0xff;
    this.bytes[this.offset++] = v & 0xff;
    return this;
  }

  u32(v: number): this {
    this.bytes[this.offset++] = (v >>> 24) & 0xff;
    this.bytes[this.offset++] = (v >>> 16) & 0xff;
    this.bytes[this.offset++] = (v >>> 8) & 0xff;
    this.bytes[this.offset++] = v & 0xff;
    return this;
  }

  put(data: Uint8Array): this {
    this.bytes.set(data, this.offset);
    this.offset += data.length;
    return this;
  }
}

/** UTF-8 bytes of a text field, or undefined when they exceed `max` bytes. */
export function boundedUtf8(text: string, max: number): Uint8Array | undefined {
  const bytes = utf8Encode(text);
  return bytes.length <= max ? bytes : undefined;
}
