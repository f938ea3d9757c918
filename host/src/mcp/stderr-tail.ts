/**
 * The last lines a child process wrote to stderr, kept so a failure notice can say why the server
 * died ("GITHUB_TOKEN is not set"). Bounded both ways: old lines are dropped (oldest first) and an
 * overlong line is cut, so a chatty or binary-spewing server costs at most
 * `maxLines * maxLineChars` characters.
 */
export class StderrTail {
  private readonly lines: string[] = [];
  /** The unfinished last line, already cut to `maxLineChars`. */
  private partial = '';
  /** Lines dropped from the front, reported so the reader knows the tail is not the whole story. */
  private dropped = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    readonly maxLines = 50,
    readonly maxLineChars = 500,
  ) {}

  push(chunk: Uint8Array | string): void {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    // The last part has no newline after it yet: it continues in the next chunk.
    const rest = parts.pop() ?? '';
    if (parts.length === 0) {
      this.partial = this.cut(this.partial + rest);
      return;
    }
    parts[0] = this.partial + (parts[0] ?? '');
    for (const part of parts) this.addLine(part);
    this.partial = this.cut(rest);
  }

  /** The kept lines, oldest first, with the unfinished one last; '' when nothing was written. */
  text(): string {
    const lines = this.partial.trim() === '' ? [...this.lines] : [...this.lines, this.partial];
    const head = this.dropped > 0 ? [`[${this.dropped} earlier lines not kept]`] : [];
    return [...head, ...lines].join('\n').trimEnd();
  }

  private addLine(line: string): void {
    this.lines.push(this.cut(line.endsWith('\r') ? line.slice(0, -1) : line));
    if (this.lines.length > this.maxLines) {
      this.lines.shift();
      this.dropped += 1;
    }
  }

  private cut(line: string): string {
    return line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)}…` : line;
  }
}
