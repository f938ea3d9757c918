/** A terminal's output kept for devices that attach later or fall behind: 256 KiB, a few dozen
 * screens of a busy program, and small enough that 32 terminals stay under 10 MiB. */
export const TERMINAL_BACKLOG_BYTES = 256 * 1024;

/** Bytes of output read at `offset`. */
export interface OutputChunk {
  offset: number;
  data: Uint8Array;
}

/**
 * The last `capacity` bytes of a stream, addressed by absolute byte offset (the first byte the
 * program ever wrote is offset 0). Appending past the capacity drops the oldest bytes; a read
 * from a dropped offset starts at the oldest byte still held, so the reader sees the jump.
 */
export class TerminalBacklog {
  private readonly ring: Uint8Array;
  /** Offset one past the last byte appended. */
  private endOffset = 0;

  constructor(readonly capacity = TERMINAL_BACKLOG_BYTES) {
    if (!Number.isInteger(capacity) || capacity <= 0) throw new RangeError(`capacity ${capacity}`);
    this.ring = new Uint8Array(capacity);
  }

  /** The oldest offset still held. */
  get start(): number {
    return Math.max(0, this.endOffset - this.capacity);
  }

  get end(): number {
    return this.endOffset;
  }

  append(data: Uint8Array): void {
    // Only the last `capacity` bytes of a large chunk can survive it.
    const kept = data.length > this.capacity ? data.subarray(data.length - this.capacity) : data;
    this.endOffset += data.length - kept.length;
    let at = this.endOffset % this.capacity;
    let rest = kept;
    while (rest.length > 0) {
      const n = Math.min(rest.length, this.capacity - at);
      this.ring.set(rest.subarray(0, n), at);
      rest = rest.subarray(n);
      at = (at + n) % this.capacity;
    }
    this.endOffset += kept.length;
  }

  /**
   * Up to `maxBytes` from `offset` (or from the oldest byte held, when `offset` was dropped);
   * undefined when nothing is there yet. The bytes are a copy: later appends never change them.
   */
  read(offset: number, maxBytes: number): OutputChunk | undefined {
    const from = Math.max(offset, this.start);
    const n = Math.min(maxBytes, this.endOffset - from);
    if (n <= 0) return undefined;
    const data = new Uint8Array(n);
    const at = from % this.capacity;
    const first = Math.min(n, this.capacity - at);
    data.set(this.ring.subarray(at, at + first));
    if (first < n) data.set(this.ring.subarray(0, n - first), first);
    return { offset: from, data };
  }
}
