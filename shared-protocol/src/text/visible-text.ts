/**
 * Text from a model, a tool, a file, a device or another program is hostile: a carriage return,
 * an escape sequence or a bidi override can make a terminal (or a page) show something other than
 * what is there — `npm test⏎touch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test` looks like `npm test`.
 * Everything that could hide or rewrite text is shown as a visible mark instead:
 *
 * - C0 controls, DEL: by their ASCII names, `⟨ESC⟩`, `⟨CR⟩`, `⟨NUL⟩`, `⟨DEL⟩`. A newline stays a
 *   newline only where the text is meant to have lines (`multiline`), else it is `⟨LF⟩`.
 * - Tab: `⟨TAB⟩`. It cannot hide text on a fresh line, but it prints exactly like spaces, and an
 *   approval must let a person tell `a⟨TAB⟩b` from `a    b`.
 * - C1 controls (U+0080–U+009F: some terminals take U+009B as CSI), bidi overrides, isolates and
 *   marks, zero-width characters, and other characters that draw nothing (soft hyphen, Hangul
 *   fillers, tag characters, line and paragraph separators, a lone surrogate that would print as
 *   U+FFFD): `⟨U+202E⟩`.
 * - The mark opener `⟨` itself: `⟨U+27E8⟩`, so no text can pass for a mark and two different
 *   inputs never print the same (the marks read back to the input exactly).
 *
 * Left alone: printable text of every script, emoji and their variation selectors, box drawing,
 * backslashes. The function knows nothing of terminals or HTML: the CLI writes its result, the app
 * renders `visibleSegments` as text nodes (never as markup).
 */

/** Opens every mark. */
export const MARK_OPEN = '⟨';
/** Closes every mark. */
export const MARK_CLOSE = '⟩';

export type HiddenClass = 'control' | 'bidi' | 'zero-width' | 'invisible' | 'mark';

export type VisibleSegment =
  { kind: 'text'; text: string } | { kind: 'mark'; mark: string; codePoint: number; class: HiddenClass };

export interface VisibleOptions {
  /** Keep newlines as newlines (an action, a message, tool output); otherwise shown as `⟨LF⟩`. */
  multiline?: boolean;
  /**
   * For a field of bounded size (a label): at most this many UTF-16 units, cut between marks and
   * ended with `…` when cut. A cut text no longer reads back exactly; never use it for an action.
   */
  maxLength?: number;
}

const C0_NAMES = [
  'NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'TAB', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI',
  'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US',
]; // prettier-ignore

const BIDI = new Set([0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]);
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]);
/** Single characters that draw nothing or break lines in some renderers. */
const INVISIBLE = new Set([0x00ad, 0x034f, 0x115f, 0x1160, 0x180e, 0x2028, 0x2029, 0x3164, 0xffa0]);
/** Ranges of the same: invisible operators, deprecated format controls, annotations, tags, surrogates. */
const INVISIBLE_RANGES: readonly (readonly [number, number])[] = [
  [0x2061, 0x2064],
  [0x206a, 0x206f],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
  [0xd800, 0xdfff],
];

/** Which class of hidden character `codePoint` is, or undefined for one shown as itself (newline included). */
export function hiddenClass(codePoint: number): HiddenClass | undefined {
  if (codePoint < 0x20) return codePoint === 0x0a ? undefined : 'control';
  if (codePoint < 0x7f) return undefined;
  if (codePoint <= 0x9f) return 'control';
  if (BIDI.has(codePoint)) return 'bidi';
  if (ZERO_WIDTH.has(codePoint)) return 'zero-width';
  if (INVISIBLE.has(codePoint)) return 'invisible';
  for (const [from, to] of INVISIBLE_RANGES) if (codePoint >= from && codePoint <= to) return 'invisible';
  if (codePoint === 0x27e8) return 'mark';
  return undefined;
}

function markFor(codePoint: number): string {
  const name =
    codePoint < 0x20
      ? C0_NAMES[codePoint]!
      : codePoint === 0x7f
        ? 'DEL'
        : `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
  return `${MARK_OPEN}${name}${MARK_CLOSE}`;
}

/** The text as runs of plain text and marks, for a renderer that styles the marks. */
export function visibleSegments(text: string, options: VisibleOptions = {}): VisibleSegment[] {
  const out: VisibleSegment[] = [];
  let plain = '';
  // Iterating a string yields code points, and a lone surrogate on its own.
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    const cls = codePoint === 0x0a && !options.multiline ? 'control' : hiddenClass(codePoint);
    if (cls === undefined) {
      plain += char;
      continue;
    }
    if (plain) out.push({ kind: 'text', text: plain });
    plain = '';
    out.push({ kind: 'mark', mark: markFor(codePoint), codePoint, class: cls });
  }
  if (plain) out.push({ kind: 'text', text: plain });
  return out;
}

/** The text with every hidden character shown as a mark: safe to write to a terminal. */
export function visibleText(text: string, options: VisibleOptions = {}): string {
  let out = '';
  for (const segment of visibleSegments(text, options)) out += segment.kind === 'text' ? segment.text : segment.mark;
  const max = options.maxLength;
  if (max === undefined || out.length <= max) return out;
  let cut = '';
  for (const segment of visibleSegments(text, options)) {
    const pieces = segment.kind === 'text' ? Array.from(segment.text) : [segment.mark];
    for (const piece of pieces) {
      if (cut.length + piece.length > max - 1) return `${cut}…`;
      cut += piece;
    }
  }
  return cut;
}
