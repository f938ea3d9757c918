import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MARK_OPEN, hiddenClass, visibleSegments, visibleText } from './visible-text.js';

/** Reads marks back into the characters they stand for: proves no two inputs print the same. */
function unescape(shown: string): string {
  const names = new Map<string, number>();
  for (let cp = 0; cp < 0x20; cp++) names.set(visibleText(String.fromCodePoint(cp)).slice(1, -1), cp);
  names.set('DEL', 0x7f);
  return shown.replace(/⟨([^⟩]*)⟩/g, (_, name: string) => {
    if (name.startsWith('U+')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    const cp = names.get(name);
    if (cp === undefined) throw new Error(`unknown mark ${name}`);
    return String.fromCodePoint(cp);
  });
}

const codePoints = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

/** Strings rich in every class that matters here, plus arbitrary code points (lone surrogates too). */
const hostile = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '\n',
        '\r',
        '\t',
        '\x1b',
        '\x1b[2K',
        '\x00',
        '\x7f',
        '\x85',
        '\x9b',
        '\u202e',
        '\u2066',
        '\u200b',
        '\u200d',
        '\ufeff',
        '\u061c',
        '⟨',
        '⟩',
        '⟨ESC⟩',
        '⟨U+202E⟩',
        '\\x1b',
        'npm test',
        ' ',
        '│',
        'é',
        '😀',
      ),
      fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((cu) => String.fromCharCode(cu)),
      fc.string(),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''));

describe('visible text', () => {
  it('shows the demonstrated hidden-line attack for what it is', () => {
    const action = 'npm test\ntouch /tmp/pwned # \r\x1b[2K│ npm test';
    expect(visibleText(action, { multiline: true })).toBe('npm test\ntouch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test');
    expect(visibleText(action)).toBe('npm test⟨LF⟩touch /tmp/pwned # ⟨CR⟩⟨ESC⟩[2K│ npm test');
  });

  it.each([
    ['C0 controls', '\x00\x07\x08\x0b\x0c\x1f', '⟨NUL⟩⟨BEL⟩⟨BS⟩⟨VT⟩⟨FF⟩⟨US⟩'],
    ['tab, shown so it cannot pass for spaces', 'a\tb', 'a⟨TAB⟩b'],
    ['escape sequences', '\x1b]0;title\x07\x1b[31m', '⟨ESC⟩]0;title⟨BEL⟩⟨ESC⟩[31m'],
    ['DEL', 'a\x7fb', 'a⟨DEL⟩b'],
    ['C1 controls (CSI, NEL, OSC)', '\x9b2K\x85\x9d', '⟨U+009B⟩2K⟨U+0085⟩⟨U+009D⟩'],
    ['bidi overrides', 'a\u202ab\u202bc\u202cd\u202de\u202ef', 'a⟨U+202A⟩b⟨U+202B⟩c⟨U+202C⟩d⟨U+202D⟩e⟨U+202E⟩f'],
    ['bidi isolates', '\u2066\u2067\u2068\u2069', '⟨U+2066⟩⟨U+2067⟩⟨U+2068⟩⟨U+2069⟩'],
    ['bidi marks', '\u200e\u200f\u061c', '⟨U+200E⟩⟨U+200F⟩⟨U+061C⟩'],
    ['zero-width characters', 'r\u200bm \u200c\u200d\u2060\ufeff', 'r⟨U+200B⟩m ⟨U+200C⟩⟨U+200D⟩⟨U+2060⟩⟨U+FEFF⟩'],
    ['other invisible characters', '\u00ad\u3164\u{e0041}\u2028', '⟨U+00AD⟩⟨U+3164⟩⟨U+E0041⟩⟨U+2028⟩'],
    ['a lone surrogate (would print as U+FFFD)', 'a\ud800b', 'a⟨U+D800⟩b'],
    [
      'spaces a shell does not split on, and blank glyphs',
      'rm a\u00a0b\u3000c\u2800',
      'rm a⟨U+00A0⟩b⟨U+3000⟩c⟨U+2800⟩',
    ],
    ['private use, unassigned, a noncharacter', '\ue0b0\u0378\ufffe', '⟨U+E0B0⟩⟨U+0378⟩⟨U+FFFE⟩'],
    ['default-ignorables of no format category', '\u17b4\u180b\u115f\ufe00', '⟨U+17B4⟩⟨U+180B⟩⟨U+115F⟩⟨U+FE00⟩'],
    ['the mark opener itself, so no text can fake a mark', '⟨ESC⟩', '⟨U+27E8⟩ESC⟩'],
  ])('%s', (_, input, shown) => {
    expect(visibleText(input)).toBe(shown);
  });

  it('leaves ordinary text alone: accents, emoji, box drawing, backslashes, CJK', () => {
    for (const text of ['café ☕ 😀', '│ ├─ └', 'C:\\Users\\x "a\\n"', '日本語のテキスト', 'x⟩y']) {
      expect(visibleText(text)).toBe(text);
    }
  });

  it('keeps newlines only when asked (multi-line actions, output)', () => {
    expect(visibleText('a\nb', { multiline: true })).toBe('a\nb');
    expect(visibleText('a\r\nb', { multiline: true })).toBe('a⟨CR⟩\nb');
    expect(visibleText('a\nb')).toBe('a⟨LF⟩b');
  });

  it('cuts between marks, with an ellipsis, to fit a bounded field', () => {
    expect(visibleText('ab\u202ecd', { maxLength: 20 })).toBe('ab⟨U+202E⟩cd');
    expect(visibleText('ab\u202ecd', { maxLength: 8 })).toBe('ab…');
    expect(visibleText('\ud800'.repeat(64), { maxLength: 256 })).toHaveLength(249);
    expect(visibleText('😀😀😀', { maxLength: 4 })).toBe('😀…');
  });

  it('classifies every code point the escaping depends on', () => {
    expect(hiddenClass(0x1b)).toBe('control');
    expect(hiddenClass(0x7f)).toBe('control');
    expect(hiddenClass(0x9b)).toBe('control');
    expect(hiddenClass(0x202e)).toBe('bidi');
    expect(hiddenClass(0x200f)).toBe('bidi');
    expect(hiddenClass(0x200b)).toBe('zero-width');
    expect(hiddenClass(0xfeff)).toBe('zero-width');
    expect(hiddenClass(0xe0001)).toBe('invisible');
    expect(hiddenClass(0xd800)).toBe('surrogate');
    expect(hiddenClass(MARK_OPEN.codePointAt(0)!)).toBe('mark');
    expect(hiddenClass(0x41)).toBeUndefined();
    expect(hiddenClass(0x20)).toBeUndefined();
    expect(hiddenClass(0xa0)).toBe('blank');
    expect(hiddenClass(0xe000)).toBe('private-use');
    expect(hiddenClass(0x0378)).toBe('unassigned');
    expect(hiddenClass(0xfe0f)).toBe('invisible'); // emoji presentation selector: ❤ and ❤️ can print alike
  });

  it('gives the app the same marks as segments it can style, and never markup', () => {
    expect(visibleSegments('a\u202eb\n<b>', { multiline: true })).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'mark', mark: '⟨U+202E⟩', codePoint: 0x202e, class: 'bidi' },
      { kind: 'text', text: 'b\n<b>' },
    ]);
  });

  it('property: the output holds no control, bidi, zero-width or other hidden code point', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (input, multiline) => {
        const shown = visibleText(input, { multiline });
        for (const cp of codePoints(shown)) {
          const cls = hiddenClass(cp);
          if (cls === 'mark') continue;
          if (multiline && cp === 0x0a) continue;
          expect(cls, `U+${cp.toString(16)} in ${JSON.stringify(shown)}`).toBeUndefined();
        }
        // Every opener in the output starts a mark: no text can pass for one.
        expect(shown.split(MARK_OPEN).length - 1).toBe(
          (shown.match(/⟨(?:U\+[0-9A-F]{4,6}|[A-Z]{2,3}\d?)⟩/g) ?? []).length,
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('property: distinct inputs stay distinguishable (the marks read back to the input)', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (input, multiline) => {
        expect(unescape(visibleText(input, { multiline }))).toBe(input);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        fc.pre(a !== b);
        expect(visibleText(a)).not.toBe(visibleText(b));
      }),
      { numRuns: 2000 },
    );
  });
});
