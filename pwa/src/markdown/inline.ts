/**
 * Inline Markdown (the common subset models write): `code`, **strong**, *em*, ~~del~~, [links](url),
 * bare http(s) links, backslash escapes and line breaks. The output is a tree of plain values; the
 * view turns it into elements whose text Preact escapes, so nothing here is ever treated as HTML.
 */

export type Inline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'strong'; children: Inline[] }
  | { t: 'em'; children: Inline[] }
  | { t: 'del'; children: Inline[] }
  | { t: 'link'; href: string; children: Inline[] }
  | { t: 'br' };

/** Nesting past this is kept as text: model output never needs it, and it bounds recursion. */
const MAX_DEPTH = 6;
/**
 * How far (characters) a closing mark is looked for. Real spans are short; the cap keeps a long
 * message full of lone `*` or backticks linear instead of quadratic.
 */
const MAX_SPAN = 4000;
const ESCAPABLE = /[\\`*_{}[\]()#+\-.!~|>]/;
const AUTOLINK = /^https?:\/\/[^\s<>"]*[^\s<>"().,;:!?'*_~]/;

/** Only these schemes become links; anything else (javascript:, data:, …) stays text. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim();
  return /^(https?:\/\/|mailto:)/i.test(trimmed) && !/[\s<>"]/.test(trimmed) ? trimmed : undefined;
}

export function parseInline(text: string, depth = 0): Inline[] {
  const out: Inline[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push({ t: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '\\' && i + 1 < text.length && ESCAPABLE.test(text[i + 1]!)) {
      plain += text[i + 1];
      i += 2;
      continue;
    }
    if (c === '\n') {
      flush();
      out.push({ t: 'br' });
      i++;
      continue;
    }
    if (c === '`') {
      const run = /^`+/.exec(text.slice(i))![0];
      const close = text.indexOf(run, i + run.length);
      if (close > 0 && close - i < MAX_SPAN) {
        flush();
        out.push({ t: 'code', text: trimCode(text.slice(i + run.length, close)) });
        i = close + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (depth < MAX_DEPTH) {
      const span = delimited(text, i, depth);
      if (span) {
        flush();
        out.push(span.node);
        i = span.end;
        continue;
      }
      if (c === '[') {
        const link = linkAt(text, i, depth);
        if (link) {
          flush();
          out.push(...link.nodes);
          i = link.end;
          continue;
        }
      }
    }
    if ((c === 'h' || c === 'H') && (i === 0 || !/[\w/]/.test(text[i - 1]!))) {
      const url = AUTOLINK.exec(text.slice(i))?.[0];
      if (url) {
        flush();
        out.push({ t: 'link', href: url, children: [{ t: 'text', text: url }] });
        i += url.length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

function trimCode(code: string): string {
  return code.length > 2 && code.startsWith(' ') && code.endsWith(' ') ? code.slice(1, -1) : code;
}

const DELIMITERS: { mark: string; t: 'strong' | 'em' | 'del' }[] = [
  { mark: '**', t: 'strong' },
  { mark: '__', t: 'strong' },
  { mark: '~~', t: 'del' },
  { mark: '*', t: 'em' },
  { mark: '_', t: 'em' },
];

/** `**x**`, `*x*`, `_x_`, `~~x~~` starting at `i`, closed on the same paragraph. */
function delimited(text: string, i: number, depth: number): { node: Inline; end: number } | undefined {
  for (const { mark, t } of DELIMITERS) {
    if (!text.startsWith(mark, i)) continue;
    const start = i + mark.length;
    const after = text[start];
    // An opening mark is followed by a non-space, and a single mark is not half of a double one.
    if (after === undefined || /\s/.test(after)) continue;
    if (mark.length === 1 && after === mark) continue;
    // `_` inside a word (snake_case) is not emphasis.
    if (mark[0] === '_' && i > 0 && /\w/.test(text[i - 1]!)) continue;
    let search = start + 1;
    const limit = Math.min(text.length, start + MAX_SPAN);
    while (search < limit) {
      const close = text.indexOf(mark, search);
      if (close < 0 || close >= limit) break;
      const before = text[close - 1]!;
      const next = text[close + mark.length];
      const runContinues = mark.length === 1 && next === mark;
      const wordAfter = mark[0] === '_' && next !== undefined && /\w/.test(next);
      if (!/\s/.test(before) && !runContinues && !wordAfter && close > start) {
        return { node: { t, children: parseInline(text.slice(start, close), depth + 1) }, end: close + mark.length };
      }
      search = close + (runContinues ? 2 : 1);
    }
  }
  return undefined;
}

/** `[label](url)`; an unsafe or missing url leaves the label as text. */
function linkAt(text: string, i: number, depth: number): { nodes: Inline[]; end: number } | undefined {
  let level = 0;
  let close = -1;
  for (let j = i; j < Math.min(text.length, i + MAX_SPAN); j++) {
    const ch = text[j];
    if (ch === '\\') j++;
    else if (ch === '[') level++;
    else if (ch === ']' && --level === 0) {
      close = j;
      break;
    } else if (ch === '\n' && text[j + 1] === '\n') break;
  }
  if (close < 0 || text[close + 1] !== '(') return undefined;
  // The target may hold balanced parentheses (Wikipedia links do).
  let end = -1;
  for (let j = close + 2, open = 1; j < Math.min(text.length, close + MAX_SPAN) && text[j] !== '\n'; j++) {
    if (text[j] === '(') open++;
    else if (text[j] === ')' && --open === 0) {
      end = j;
      break;
    }
  }
  if (end < 0) return undefined;
  const children = parseInline(text.slice(i + 1, close), depth + 1);
  const target = text.slice(close + 2, end).trim();
  const href = safeHref(target.split(/\s+/)[0] ?? '');
  return { nodes: href ? [{ t: 'link', href, children }] : children, end: end + 1 };
}
