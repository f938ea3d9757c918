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
  private readonly styles = new XtermStyles();

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
    this.styles.capture(() => this.terminal.open(container));
    this.styles.cellStylesThroughCssom(this.terminal);
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
 * xterm.js (its DOM renderer) writes its sizes and colours as CSS text: into `<style>` elements it
 * makes, and into a cell's `style` attribute for a 24-bit colour. The app's policy (`style-src
 * 'self'`, no inline styles) refuses both, and logs each refusal: the rules would be lost and the
 * console full. Instead, with nothing inline allowed:
 * - the `<style>` elements xterm makes while it opens keep no text: what it writes to them goes to
 *   constructed style sheets (which the policy does not govern) adopted by the document;
 * - a cell's style goes through the CSSOM (`element.style`), which the policy allows too.
 * The rules are xterm's own, never output: a program's output only picks colours from them.
 */
class XtermStyles {
  private readonly sheets: CSSStyleSheet[] = [];

  /** Runs `open` (xterm's `open`) with every `<style>` it makes redirected to a sheet. */
  capture(open: () => void): void {
    const create = document.createElement.bind(document);
    // Own property on the document, removed after: xterm makes its style elements while it opens.
    document.createElement = (tagName: string, options?: ElementCreationOptions) => {
      const element = create(tagName, options);
      if (element instanceof HTMLStyleElement) this.redirect(element);
      return element;
    };
    try {
      open();
    } finally {
      delete (document as { createElement?: unknown }).createElement;
    }
  }

  /** A cell's style through the CSSOM instead of its attribute (xterm's row factory). */
  cellStylesThroughCssom(terminal: Terminal): void {
    const factory = (terminal as unknown as XtermInternals)._core?._renderService?._renderer?.value?._rowFactory;
    // xterm 6's names; another version may differ, and then app-terminal.spec.ts sees the refusals.
    if (!factory || typeof factory._addStyle !== 'function') return;
    factory._addStyle = (element, style) => {
      element.style.cssText += `;${style}`;
    };
  }

  dispose(): void {
    const mine = new Set(this.sheets);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !mine.has(s));
    this.sheets.length = 0;
  }

  private redirect(element: HTMLStyleElement): void {
    const sheet = new CSSStyleSheet();
    this.sheets.push(sheet);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    let text = '';
    Object.defineProperty(element, 'textContent', {
      configurable: true,
      get: () => text,
      set: (value: string | null) => {
        // Rows redraw many times a second; the rules change only with the size or the theme.
        if ((value ?? '') === text) return;
        text = value ?? '';
        sheet.replaceSync(text);
      },
    });
  }
}

/** The parts of xterm's inside this file reaches: its DOM renderer's row factory. */
interface XtermInternals {
  _core?: {
    _renderService?: {
      _renderer?: { value?: { _rowFactory?: { _addStyle?: (element: HTMLElement, style: string) => void } } };
    };
  };
}
