import { describe, expect, it } from 'vitest';
import { visibleText } from './visible-text.js';

/**
 * Every code point, 0 to U+10FFFF, checked against what the Unicode Character Database says of it.
 * The expectation is built here from the published tables (Unicode 17.0: DerivedCoreProperties.txt
 * and DerivedGeneralCategory.txt), not from the regular expression the escaping uses, and each
 * table is first checked against the JavaScript engine's own data, so a runtime with other data
 * fails here by name instead of passing something unmarked.
 */

type Ranges = readonly (readonly [number, number])[];

/** Default_Ignorable_Code_Point: drawn as nothing when a font has no glyph for it. */
const DEFAULT_IGNORABLE: Ranges = [
  [0x00ad, 0x00ad],
  [0x034f, 0x034f],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180b, 0x180f],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfff8],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0000, 0xe0fff],
];

/** General_Category=Format (Cf). */
const FORMAT: Ranges = [
  [0x00ad, 0x00ad],
  [0x0600, 0x0605],
  [0x061c, 0x061c],
  [0x06dd, 0x06dd],
  [0x070f, 0x070f],
  [0x0890, 0x0891],
  [0x08e2, 0x08e2],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x206f],
  [0xfeff, 0xfeff],
  [0xfff9, 0xfffb],
  [0x110bd, 0x110bd],
  [0x110cd, 0x110cd],
  [0x13430, 0x1343f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xe0001, 0xe0001],
  [0xe0020, 0xe007f],
];

/** General_Category=Space_Separator (Zs): U+0020 and the spaces that print like it. */
const SPACE_SEPARATOR: Ranges = [
  [0x0020, 0x0020],
  [0x00a0, 0x00a0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
];

/** Categories fixed by the standard's stability policy: Cc, Cs, Co, Zl, Zp. */
const CONTROL: Ranges = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
];
const SURROGATE: Ranges = [[0xd800, 0xdfff]];
const PRIVATE_USE: Ranges = [
  [0xe000, 0xf8ff],
  [0xf0000, 0xffffd],
  [0x100000, 0x10fffd],
];
const LINE_SEPARATOR: Ranges = [[0x2028, 0x2028]];
const PARAGRAPH_SEPARATOR: Ranges = [[0x2029, 0x2029]];

/**
 * Not by property, and marked all the same: characters assigned a visible category whose glyph is
 * blank in the common fonts (BRAILLE PATTERN BLANK, MUSICAL SYMBOL NULL NOTEHEAD), and the mark
 * opener itself.
 */
const BLANK_GLYPHS = [0x2800, 0x1d159];
const MARK_OPENER = 0x27e8;

/** The ranges the escaping was found to let through, named on their own. */
const FOUND_UNMARKED: Ranges = [
  [0x17b4, 0x17b5],
  [0x180b, 0x180d],
  [0x180f, 0x180f],
  [0x1bca0, 0x1bca3],
  [0x1d173, 0x1d17a],
  [0xfff0, 0xfff8],
  [0xe0080, 0xe0fff],
];

const MAX_CODE_POINT = 0x10ffff;

function bitmap(ranges: Ranges): Uint8Array {
  const set = new Uint8Array(MAX_CODE_POINT + 1);
  for (const [from, to] of ranges) set.fill(1, from, to + 1);
  return set;
}

/** Code points the engine matches with `pattern` (a one-character class), as a bitmap. */
function engineBitmap(pattern: RegExp): Uint8Array {
  const set = new Uint8Array(MAX_CODE_POINT + 1);
  for (let cp = 0; cp <= MAX_CODE_POINT; cp++) if (pattern.test(String.fromCodePoint(cp))) set[cp] = 1;
  return set;
}

function differences(expected: Uint8Array, actual: Uint8Array): string[] {
  const out: string[] = [];
  for (let cp = 0; cp <= MAX_CODE_POINT && out.length < 20; cp++) {
    if (expected[cp] !== actual[cp]) out.push(`U+${hex(cp)} table ${expected[cp]} engine ${actual[cp]}`);
  }
  return out;
}

const hex = (cp: number) => cp.toString(16).toUpperCase().padStart(4, '0');

const C0_NAME = /^⟨[A-Z]{2,3}\d?⟩$/;

/** Whether `shown` is the one mark that stands for `cp`. */
function isMarkFor(cp: number, shown: string): boolean {
  if (cp < 0x20) return C0_NAME.test(shown);
  if (cp === 0x7f) return shown === '⟨DEL⟩';
  return shown === `⟨U+${hex(cp)}⟩`;
}

const TABLES = {
  Default_Ignorable_Code_Point: [DEFAULT_IGNORABLE, /^\p{Default_Ignorable_Code_Point}$/u],
  Format: [FORMAT, /^\p{General_Category=Format}$/u],
  Space_Separator: [SPACE_SEPARATOR, /^\p{General_Category=Space_Separator}$/u],
  Control: [CONTROL, /^\p{General_Category=Control}$/u],
  Surrogate: [SURROGATE, /^\p{General_Category=Surrogate}$/u],
  Private_Use: [PRIVATE_USE, /^\p{General_Category=Private_Use}$/u],
  Line_Separator: [LINE_SEPARATOR, /^\p{General_Category=Line_Separator}$/u],
  Paragraph_Separator: [PARAGRAPH_SEPARATOR, /^\p{General_Category=Paragraph_Separator}$/u],
} as const;

/**
 * Unassigned (Cn) is what no other category claims: computed from the other 29 categories, so a
 * code point the engine's data leaves out of every one counts as unassigned, as it must.
 */
const ASSIGNED = /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\p{Cc}\p{Cf}\p{Cs}\p{Co}]$/u;

/** Every code point that must be shown as a mark (a newline too: it is one outside multi-line text). */
let expected: Uint8Array | undefined;
function expectedHidden(): Uint8Array {
  if (expected) return expected;
  const hidden = new Uint8Array(MAX_CODE_POINT + 1);
  for (const [ranges] of Object.values(TABLES)) {
    for (const [from, to] of ranges) hidden.fill(1, from, to + 1);
  }
  hidden[0x20] = 0; // the one space a shell splits on, and prints as what it is
  for (const cp of [...BLANK_GLYPHS, MARK_OPENER]) hidden[cp] = 1;
  for (let cp = 0; cp <= MAX_CODE_POINT; cp++) if (!ASSIGNED.test(String.fromCodePoint(cp))) hidden[cp] = 1;
  expected = hidden;
  return hidden;
}

describe('every code point', () => {
  it.each(Object.entries(TABLES))("the engine's %s is the published table", (_, [ranges, pattern]) => {
    expect(differences(bitmap(ranges), engineBitmap(pattern))).toEqual([]);
  });

  it('the ranges found unmarked are marked, each code point as itself', () => {
    for (const [from, to] of FOUND_UNMARKED) {
      for (let cp = from; cp <= to; cp++) expect(visibleText(`a${String.fromCodePoint(cp)}b`)).toBe(`a⟨U+${hex(cp)}⟩b`);
    }
  });

  it('each code point is shown as itself when it prints, as its own mark when it is hidden', () => {
    const hidden = expectedHidden();
    const wrong: string[] = [];
    let marked = 0;
    for (let cp = 0; cp <= MAX_CODE_POINT && wrong.length < 20; cp++) {
      const char = String.fromCodePoint(cp);
      const shown = visibleText(char);
      if (hidden[cp]) {
        marked++;
        if (!isMarkFor(cp, shown)) wrong.push(`U+${hex(cp)} should be marked, shown as ${JSON.stringify(shown)}`);
      } else if (shown !== char) {
        wrong.push(`U+${hex(cp)} should pass as itself, shown as ${JSON.stringify(shown)}`);
      }
    }
    expect(wrong).toEqual([]);
    // A newline stays one only where the text is meant to have lines.
    expect(visibleText('\n', { multiline: true })).toBe('\n');
    // Sanity: the unassigned planes alone are most of the code space.
    expect(marked).toBeGreaterThan(800_000);
  });

  it('two strings that differ by one hidden code point, added or in place of a space, never print alike', () => {
    const hidden = expectedHidden();
    const MARK = /⟨(?:U\+[0-9A-F]{4,6}|[A-Z]{2,3}\d?)⟩/g;
    const twins = [visibleText('rm -rf ab'), visibleText('rm -rf a b')];
    const wrong: string[] = [];
    for (let cp = 0; cp <= MAX_CODE_POINT && wrong.length < 20; cp++) {
      if (!hidden[cp]) continue;
      const shown = visibleText(`rm -rf a${String.fromCodePoint(cp)}b`);
      // Outside the marks nothing hidden is left to print, so what differs is there to see.
      const rest = shown.replace(MARK, '');
      let leftHidden = false;
      for (const c of rest) if (c !== ' ' && hidden[c.codePointAt(0)!]) leftHidden = true;
      if (twins.includes(shown) || leftHidden) wrong.push(`U+${hex(cp)}: ${JSON.stringify(shown)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('emoji keep their pictures; a joiner or a variation selector in them is shown, since a terminal may print both forms alike', () => {
    expect(visibleText('👍🏽 🇫🇷 😀')).toBe('👍🏽 🇫🇷 😀');
    expect(visibleText('❤️')).toBe('❤⟨U+FE0F⟩');
    expect(visibleText('👨‍👩‍👧')).toBe('👨⟨U+200D⟩👩⟨U+200D⟩👧');
  });
});
