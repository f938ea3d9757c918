/**
 * Text from a model, a tool, a file, a device or another program is hostile: a carriage return,
 * an escape sequence or a bidi override can make a terminal (or a page) show something other than
 * what is there — `npm test⏎touch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test` looks like `npm test`.
 * Everything that could hide or rewrite text, or print like something else, is shown as a visible
 * mark instead. What is hidden is decided by Unicode property, not by a list of ranges, so a
 * character nobody thought of is caught by what it is:
 *
 * - Controls (Cc). C0 and DEL by their ASCII names, `⟨ESC⟩`, `⟨CR⟩`, `⟨NUL⟩`, `⟨DEL⟩`; a newline stays
 *   a newline only where the text is meant to have lines (`multiline`), else it is `⟨LF⟩`. Tab is
 *   `⟨TAB⟩`: it prints exactly like spaces, and an approval must tell `a⟨TAB⟩b` from `a    b`. C1
 *   (U+0080–U+009F) as `⟨U+009B⟩`: some terminals take U+009B as CSI.
 * - Format characters (Cf): bidi overrides, isolates and marks, zero-width characters, the soft
 *   hyphen, tags, invisible operators, shorthand and musical format controls.
 * - Default_Ignorable_Code_Point: what a renderer draws as nothing when it has no glyph, assigned or
 *   not: variation selectors (so `❤️` is `❤⟨U+FE0F⟩`, since `❤` and `❤️` may print alike), Hangul
 *   fillers, the Khmer inherent vowels, Mongolian selectors, U+FFF0–U+FFF8, plane 14.
 * - Private use (Co), unassigned code points (Cn, noncharacters included) and lone surrogates (Cs,
 *   which would print as U+FFFD): their glyph, if any, is the font's choice.
 * - Line and paragraph separators (Zl, Zp), and every space separator (Zs) but U+0020: a no-break
 *   or en space prints like a space, but a shell does not split words on it.
 * - Characters of a visible category whose glyph is blank: U+2800 BRAILLE PATTERN BLANK, U+1D159
 *   MUSICAL SYMBOL NULL NOTEHEAD.
 * - The mark opener `⟨` itself: `⟨U+27E8⟩`, so no text can pass for a mark and two different
 *   inputs never print the same (the marks read back to the input exactly).
 *
 * A zero-width joiner is marked inside an emoji too (`👨⟨U+200D⟩👩`): a terminal without that
 * sequence's glyph prints it like the emoji side by side, and an approval is not the place to guess.
 *
 * Left alone: printable text of every script, emoji and their skin tones, box drawing, backslashes.
 * Which code points are unassigned follows the runtime's Unicode version; an older runtime marks
 * more, never less. Characters that look alike but print (Cyrillic `а` and Latin `a`) are not this
 * function's to judge. It knows nothing of terminals or HTML: the CLI writes its result, the app
 * renders `visibleSegments` as text nodes (never as markup).
 */

/** Opens every mark. */
export const MARK_OPEN = '⟨';
/** Closes every mark. */
export const MARK_CLOSE = '⟩';

/**
 * Why a character is shown as a mark, for a renderer's note. `invisible`: format characters, other
 * default-ignorables, line and paragraph separators; `blank`: a space other than U+0020, or a
 * character with a blank glyph.
 */
export type HiddenClass =
  'control' | 'bidi' | 'zero-width' | 'invisible' | 'blank' | 'private-use' | 'unassigned' | 'surrogate' | 'mark';

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

/**
 * Every code point shown as a mark, and U+0020 and the newline, which the code below lets through
 * (they are Zs and Cc). Property escapes with the `u` flag work in every runtime the app and the
 * host support (Node, Chromium, Safari 11.1 and later, Firefox 78 and later).
 */
const HIDDEN_SET = String.raw`[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Zs}\p{Default_Ignorable_Code_Point}\u2800\u{1D159}\u27E8]`;
/** One hidden code point (ASCII is decided before it is asked). */
const HIDDEN = new RegExp(`^${HIDDEN_SET}$`, 'u');
/** The next hidden code point but a space, in text of one line; and but a newline, in text of several. */
const FIND_IN_LINE = new RegExp(`(?! )${HIDDEN_SET}`, 'gu');
const FIND_IN_LINES = new RegExp(`(?![ \n])${HIDDEN_SET}`, 'gu');

/** Names the reason for a character already found hidden. */
const BIDI = /^\p{Bidi_Control}$/u;
/** Zero-width characters by name: space, non-joiner, joiner, word joiner, BOM. */
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]);
const BLANK = /^[\p{Zs}\u2800\u{1D159}]$/u;
const CONTROL = /^\p{Cc}$/u;
const SURROGATE = /^\p{Cs}$/u;
const PRIVATE_USE = /^\p{Co}$/u;
const UNASSIGNED = /^\p{Cn}$/u;

/** Which class of hidden character `codePoint` is, or undefined for one shown as itself (newline included). */
export function hiddenClass(codePoint: number): HiddenClass | undefined {
  if (codePoint < 0x20) return codePoint === 0x0a ? undefined : 'control';
  if (codePoint < 0x7f) return undefined;
  const char = String.fromCodePoint(codePoint);
  return HIDDEN.test(char) ? reason(codePoint, char) : undefined;
}

/** Why a code point known to be hidden is: the first class that names it. */
function reason(codePoint: number, char: string): HiddenClass {
  if (codePoint === 0x27e8) return 'mark';
  if (CONTROL.test(char)) return 'control';
  if (BIDI.test(char)) return 'bidi';
  if (ZERO_WIDTH.has(codePoint)) return 'zero-width';
  if (SURROGATE.test(char)) return 'surrogate';
  if (PRIVATE_USE.test(char)) return 'private-use';
  if (UNASSIGNED.test(char)) return 'unassigned';
  if (BLANK.test(char)) return 'blank';
  return 'invisible';
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
  const find = options.multiline ? FIND_IN_LINES : FIND_IN_LINE;
  find.lastIndex = 0; // shared, and used only inside this synchronous loop
  let from = 0;
  // With the `u` flag a match is a whole code point, or a lone surrogate on its own.
  for (let match = find.exec(text); match !== null; match = find.exec(text)) {
    if (match.index > from) out.push({ kind: 'text', text: text.slice(from, match.index) });
    const char = match[0];
    const codePoint = char.codePointAt(0)!;
    out.push({ kind: 'mark', mark: markFor(codePoint), codePoint, class: reason(codePoint, char) });
    from = find.lastIndex;
  }
  if (from < text.length) out.push({ kind: 'text', text: text.slice(from) });
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
