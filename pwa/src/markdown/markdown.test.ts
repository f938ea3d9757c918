import { describe, expect, it } from 'vitest';
import { parseMarkdown } from './blocks.js';
import { parseInline, safeHref } from './inline.js';

describe('inline markdown', () => {
  it('parses code, emphasis, strikethrough and links', () => {
    expect(parseInline('a `b*c` **d** *e* ~~f~~ [g](https://x.y/z)')).toEqual([
      { t: 'text', text: 'a ' },
      { t: 'code', text: 'b*c' },
      { t: 'text', text: ' ' },
      { t: 'strong', children: [{ t: 'text', text: 'd' }] },
      { t: 'text', text: ' ' },
      { t: 'em', children: [{ t: 'text', text: 'e' }] },
      { t: 'text', text: ' ' },
      { t: 'del', children: [{ t: 'text', text: 'f' }] },
      { t: 'text', text: ' ' },
      { t: 'link', href: 'https://x.y/z', children: [{ t: 'text', text: 'g' }] },
    ]);
  });

  it('keeps unsafe link targets as text and never yields markup', () => {
    expect(parseInline('[click](javascript:alert(1))')).toEqual([{ t: 'text', text: 'click' }]);
    expect(parseInline('<img src=x onerror=alert(1)>')).toEqual([{ t: 'text', text: '<img src=x onerror=alert(1)>' }]);
    expect(safeHref('data:text/html,hi')).toBeUndefined();
    expect(safeHref('MAILTO:a@b.c')).toBe('MAILTO:a@b.c');
  });

  it('links bare urls without their trailing punctuation', () => {
    expect(parseInline('see https://example.com/a_b.')).toEqual([
      { t: 'text', text: 'see ' },
      { t: 'link', href: 'https://example.com/a_b', children: [{ t: 'text', text: 'https://example.com/a_b' }] },
      { t: 'text', text: '.' },
    ]);
  });

  it('leaves snake_case, lone stars and unclosed marks alone', () => {
    expect(parseInline('snake_case_name 2 * 3 * 4 **open')).toEqual([
      { t: 'text', text: 'snake_case_name 2 * 3 * 4 **open' },
    ]);
  });

  it('honours backslash escapes and line breaks', () => {
    expect(parseInline('\\*not em\\*\nnext')).toEqual([
      { t: 'text', text: '*not em*' },
      { t: 'br' },
      { t: 'text', text: 'next' },
    ]);
  });
});

describe('block markdown', () => {
  it('parses headings, paragraphs, rules and quotes', () => {
    expect(parseMarkdown('# Title\n\nsome text\nmore\n\n---\n> quoted')).toEqual([
      { t: 'h', level: 1, children: [{ t: 'text', text: 'Title' }] },
      { t: 'p', children: [{ t: 'text', text: 'some text' }, { t: 'br' }, { t: 'text', text: 'more' }] },
      { t: 'hr' },
      { t: 'quote', children: [{ t: 'p', children: [{ t: 'text', text: 'quoted' }] }] },
    ]);
  });

  it('parses fenced code, closed or still streaming', () => {
    expect(parseMarkdown('```ts\nconst a = "<b>";\n```\nafter')).toEqual([
      { t: 'code', lang: 'ts', text: 'const a = "<b>";', open: false },
      { t: 'p', children: [{ t: 'text', text: 'after' }] },
    ]);
    expect(parseMarkdown('```\nhalf')).toEqual([{ t: 'code', lang: '', text: 'half', open: true }]);
  });

  it('parses nested lists', () => {
    expect(parseMarkdown('- a\n- b\n  - c\n1. one\n2. two')).toEqual([
      {
        t: 'list',
        ordered: false,
        start: 1,
        items: [
          [{ t: 'p', children: [{ t: 'text', text: 'a' }] }],
          [
            { t: 'p', children: [{ t: 'text', text: 'b' }] },
            { t: 'list', ordered: false, start: 1, items: [[{ t: 'p', children: [{ t: 'text', text: 'c' }] }]] },
          ],
        ],
      },
      {
        t: 'list',
        ordered: true,
        start: 1,
        items: [
          [{ t: 'p', children: [{ t: 'text', text: 'one' }] }],
          [{ t: 'p', children: [{ t: 'text', text: 'two' }] }],
        ],
      },
    ]);
  });

  it('parses tables', () => {
    expect(parseMarkdown('| a | b |\n|---|:-:|\n| 1 | `x\\|y` |')).toEqual([
      {
        t: 'table',
        head: [[{ t: 'text', text: 'a' }], [{ t: 'text', text: 'b' }]],
        rows: [[[{ t: 'text', text: '1' }], [{ t: 'code', text: 'x|y' }]]],
      },
    ]);
  });

  it('gives a tree for deeply nested hostile input without overflowing', () => {
    const deep = '> '.repeat(5000) + 'x';
    expect(() => parseMarkdown(deep)).not.toThrow();
    const stars = '*'.repeat(20000);
    expect(() => parseInline(stars)).not.toThrow();
  });
});

describe('markdown on long hostile input', () => {
  it('grows linearly, not quadratically, on many unclosed marks', () => {
    // A ratio of two sizes measured in the same run, best of three: a busy machine slows both
    // alike. Four times the input takes about four times as long when linear, sixteen when not.
    const cost = (repeats: number) => {
      const text = '*a _b `c [d '.repeat(repeats);
      let best = Infinity;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        parseMarkdown(text);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    cost(1_000);
    // Load spikes only ever inflate a ratio, so the best of three pairs is the honest one.
    const ratios = [0, 1, 2].map(() => cost(20_000) / cost(5_000));
    expect(Math.min(...ratios)).toBeLessThan(10);
  });
});
