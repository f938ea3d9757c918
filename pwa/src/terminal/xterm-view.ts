import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import type { TerminalSink } from './terminal-model.js';

/**
 * xterm.js on the page: loaded only when a terminal screen opens (it is most of that screen's
 * weight), never part of the app's first load. Output reaches the page only through xterm, drawn
 * as terminal cells, never as markup.
 */
export class XtermView implements TerminalSink {
  private readonly terminal: Terminal;
  private readonly fitAddon = new FitAddon();
  private readonly styles: StyleMirror;

  constructor(container: HTMLElement) {
    this.terminal = new Terminal({
      allowProposedApi: false,
      cursorBlink: false,
      fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
      fontSize: 13,
      scrollback: 2000,
      // Links in output are text like any other: nothing a program prints opens anything.
      linkHandler: null,
      theme: { background: '#111317', foreground: '#e6e6e6', cursor: '#e6e6e6' },
    });
    this.terminal.loadAddon(this.fitAddon);
    this.styles = new StyleMirror(container);
    this.terminal.open(container);
  }

  write(data: Uint8Array, done: () => void): void {
    this.terminal.write(data, done);
  }

  reset(): void {
    this.terminal.reset();
  }

  /** Typed or pasted input, as the terminal encodes it (keys, bracketed paste). */
  onData(listener: (data: string) => void): () => void {
    const subscription = this.terminal.onData(listener);
    return () => subscription.dispose();
  }

  /** Fits the grid to the element; the new size, when it changed. */
  fit(): { cols: number; rows: number } | undefined {
    const before = `${this.terminal.cols}x${this.terminal.rows}`;
    try {
      this.fitAddon.fit();
    } catch {
      return undefined; // not laid out yet (hidden)
    }
    const { cols, rows } = this.terminal;
    return `${cols}x${rows}` === before ? undefined : { cols, rows };
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.terminal.cols, rows: this.terminal.rows };
  }

  /** Whether the program asked for application cursor keys (full-screen programs do). */
  get applicationCursor(): boolean {
    return this.terminal.modes.applicationCursorKeysMode;
  }

  /** Sends text as a paste (bracketed when the program asked for it). */
  paste(text: string): void {
    this.terminal.paste(text);
  }

  focus(): void {
    this.terminal.focus();
  }

  /** The screen and its scrollback as plain text, for selecting and copying. */
  text(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    while (lines.length > 0 && lines.at(-1) === '') lines.pop();
    return lines.join('\n');
  }

  dispose(): void {
    this.terminal.dispose();
    this.styles.dispose();
  }
}

/**
 * xterm.js writes its sizes and colours into `<style>` elements, whose text the app's policy
 * (`style-src 'self'`, no inline styles) refuses to apply. Their text is mirrored into
 * constructed style sheets, which the policy allows: the rules are xterm's own, never output.
 */
class StyleMirror {
  private readonly sheets = new Map<HTMLStyleElement, { sheet: CSSStyleSheet; text: string }>();
  private readonly observer: MutationObserver;

  constructor(private readonly root: HTMLElement) {
    this.observer = new MutationObserver(() => this.sync());
    this.observer.observe(root, { childList: true, subtree: true, characterData: true });
  }

  private sync(): void {
    const present = new Set(this.root.querySelectorAll('style'));
    for (const [element, { sheet }] of this.sheets) {
      if (present.has(element)) continue;
      this.sheets.delete(element);
      document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== sheet);
    }
    for (const element of present) {
      const text = element.textContent ?? '';
      let mirror = this.sheets.get(element);
      if (!mirror) {
        mirror = { sheet: new CSSStyleSheet(), text: '' };
        this.sheets.set(element, mirror);
        document.adoptedStyleSheets = [...document.adoptedStyleSheets, mirror.sheet];
      }
      // Output redraws rows many times a second; the rules change only with the size or theme.
      if (mirror.text === text) continue;
      mirror.text = text;
      mirror.sheet.replaceSync(text);
    }
  }

  dispose(): void {
    this.observer.disconnect();
    const mine = new Set([...this.sheets.values()].map((m) => m.sheet));
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !mine.has(s));
    this.sheets.clear();
  }
}
