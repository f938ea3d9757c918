/**
 * Splits a byte stream into newline-terminated lines, refusing a line longer than `maxBytes`
 * (the caller closes the connection) instead of buffering without bound.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** Returns the complete lines in `chunk`, or 'too-long' when a line outgrows the limit. */
  push(chunk: Buffer): Buffer[] | 'too-long' {
    const lines: Buffer[] = [];
    let start = 0;
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, i);
      if (this.size + piece.length > this.maxBytes) return 'too-long';
      lines.push(this.parts.length > 0 ? Buffer.concat([...this.parts, piece]) : piece);
      this.parts = [];
      this.size = 0;
      start = i + 1;
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      this.size += rest.length;
      if (this.size > this.maxBytes) return 'too-long';
      this.parts.push(rest);
    }
    return lines;
  }
}
