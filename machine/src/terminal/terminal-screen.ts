import { createRequire } from 'node:module';
import headless from '@xterm/headless';

/**
 * The serialize addon, loaded without its type declarations: they import the browser xterm's,
 * which pull the DOM library into every program that compiles this file. Only this is used.
 */
interface Serializer extends headless.ITerminalAddon {
  serialize(options: { scrollback: number }): string;
}
const { SerializeAddon } = createRequire(import.meta.url)('@xterm/addon-serialize') as {
  SerializeAddon: new () => Serializer;
};

/** Lines of scrollback the screen keeps and a snapshot carries above the visible screen: a few
 * screens of context, about 200 KiB of cells at 80 columns. */
export const SCREEN_SCROLLBACK_LINES = 200;
/** Bytes of output the screen model may have left to parse before the PTY is paused: 64 KiB,
 * well under the backlog, so a snapshot's offset is always one the backlog still holds. */
export const MAX_SCREEN_LAG_BYTES = 64 * 1024;
/** Bytes of a snapshot: 512 KiB, so it fits one sealed frame as base64url with room to spare. */
export const MAX_SNAPSHOT_BYTES = 512 * 1024;

/** The screen as of `offset`: bytes that draw it on a reset terminal of the same size. */
export interface ScreenSnapshot {
  offset: number;
  cols: number;
  rows: number;
  data: Uint8Array;
}

/**
 * The terminal's current screen, kept by a headless xterm that parses the same output the
 * devices get. A device whose offset fell out of the backlog gets a snapshot of it: exact for
 * full-screen programs (their alternate screen, cursor and modes), the last lines for the rest.
 */
export class TerminalScreen {
  private readonly terminal: headless.Terminal;
  private readonly serializer = new SerializeAddon();
  private written = 0;
  private parsed = 0;
  private disposed = false;

  constructor(
    cols: number,
    rows: number,
    /** Called when the parser had fallen MAX_SCREEN_LAG_BYTES behind and caught up again. */
    private readonly onCaughtUp: () => void,
  ) {
    this.terminal = new headless.Terminal({ cols, rows, scrollback: SCREEN_SCROLLBACK_LINES, allowProposedApi: true });
    this.terminal.loadAddon(this.serializer);
  }

  /** Output bytes written and not yet parsed. */
  get lag(): number {
    return this.written - this.parsed;
  }

  get behind(): boolean {
    return this.lag > MAX_SCREEN_LAG_BYTES;
  }

  write(data: Uint8Array): void {
    if (this.disposed) return;
    this.written += data.length;
    this.terminal.write(data, () => {
      const wasBehind = this.behind;
      this.parsed += data.length;
      if (wasBehind && !this.behind) this.onCaughtUp();
    });
  }

  resize(cols: number, rows: number): void {
    if (!this.disposed) this.terminal.resize(cols, rows);
  }

  /** Resolves once everything written so far is parsed. */
  settled(): Promise<void> {
    return new Promise((resolve) => (this.disposed ? resolve() : this.terminal.write('', resolve)));
  }

  /** The visible screen as plain text, a line per row, trailing spaces removed (as parsed so far). */
  lines(): string[] {
    if (this.disposed) return [];
    const buffer = this.terminal.buffer.active;
    const out: string[] = [];
    for (let row = 0; row < this.terminal.rows; row++) {
      out.push((buffer.getLine(buffer.viewportY + row)?.translateToString(true) ?? '').trimEnd());
    }
    return out;
  }

  snapshot(): ScreenSnapshot {
    const { cols, rows } = this.terminal;
    let text = this.serializer.serialize({ scrollback: SCREEN_SCROLLBACK_LINES });
    let data = new TextEncoder().encode(text);
    if (data.length > MAX_SNAPSHOT_BYTES) {
      text = this.serializer.serialize({ scrollback: 0 });
      data = new TextEncoder().encode(text);
    }
    // A screen of 1000 columns by 500 rows in many colours: say so instead of sending a part.
    if (data.length > MAX_SNAPSHOT_BYTES)
      data = new TextEncoder().encode('\x1b[2J\x1b[H[the screen is too large to restore]\r\n');
    return { offset: this.parsed, cols, rows, data };
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.terminal.dispose();
  }
}
