import type { Inline } from './inline.js';
import { parseInline } from './inline.js';

/**
 * Block Markdown: paragraphs, headings, fenced code, block quotes, lists, tables and rules. Made
 * for model output that is still streaming: an unclosed fence is a code block that is still
 * open, and every input gives some tree (there is no syntax error).
 */

export type Block =
  | { t: 'p'; children: Inline[] }
  | { t: 'h'; level: number; children: Inline[] }
  | { t: 'code'; lang: string; text: string; open: boolean }
  | { t: 'quote'; children: Block[] }
  | { t: 'list'; ordered: boolean; start: number; items: Block[][] }
  | { t: 'table'; head: Inline[][]; rows: Inline[][][] }
  | { t: 'hr' };

/** Quotes and lists nested deeper than this are kept as text (bounds recursion on hostile input). */
const MAX_DEPTH = 8;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(?:\s+(.*))?$/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

export function parseMarkdown(text: string): Block[] {
  return parseLines(text.replace(/\r\n?/g, '\n').split('\n'), 0);
}

function parseLines(lines: string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      let j = i + 1;
      let open = true;
      for (; j < lines.length; j++) {
        const candidate = lines[j]!.trim();
        if (candidate.startsWith(marker[0]!.repeat(marker.length)) && /^([`~])\1*$/.test(candidate)) {
          open = false;
          break;
        }
        body.push(lines[j]!);
      }
      blocks.push({ t: 'code', lang: fence[2] ?? '', text: body.join('\n'), open });
      i = open ? j : j + 1;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1]!.length, children: parseInline(heading[2] ?? '') });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ t: 'hr' });
      i++;
      continue;
    }
    if (depth < MAX_DEPTH && QUOTE.test(line)) {
      const inner: string[] = [];
      for (; i < lines.length && QUOTE.test(lines[i]!); i++) inner.push(QUOTE.exec(lines[i]!)![1]!);
      blocks.push({ t: 'quote', children: parseLines(inner, depth + 1) });
      continue;
    }
    if (depth < MAX_DEPTH && ITEM.test(line)) {
      const list = parseList(lines, i, depth);
      blocks.push(list.block);
      i = list.end;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_DELIMITER.test(lines[i + 1]!)) {
      const head = splitRow(line);
      const rows: Inline[][][] = [];
      let j = i + 2;
      for (; j < lines.length && lines[j]!.includes('|') && lines[j]!.trim() !== ''; j++) {
        rows.push(splitRow(lines[j]!));
      }
      blocks.push({ t: 'table', head, rows });
      i = j;
      continue;
    }
    const para: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && (para.length === 0 || !startsBlock(lines[i]!))) {
      para.push(lines[i]!.trim());
      i++;
    }
    blocks.push({ t: 'p', children: parseInline(para.join('\n')) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line);
}

function parseList(lines: string[], from: number, depth: number): { block: Block; end: number } {
  const first = ITEM.exec(lines[from]!)!;
  const ordered = /\d/.test(first[2]![0]!);
  const start = ordered ? parseInt(first[2]!, 10) : 1;
  const items: Block[][] = [];
  let i = from;
  while (i < lines.length) {
    const match = ITEM.exec(lines[i]!);
    if (!match || /\d/.test(match[2]![0]!) !== ordered) break;
    const indent = match[1]!.length + match[2]!.length + 1;
    const body = [match[3] ?? ''];
    i++;
    while (i < lines.length) {
      const next = lines[i]!;
      if (next.trim() === '') {
        // A blank line continues the item only when indented content follows it.
        const following = lines[i + 1];
        if (following !== undefined && leadingSpaces(following) >= indent && following.trim() !== '') {
          body.push('');
          i++;
          continue;
        }
        break;
      }
      if (leadingSpaces(next) >= Math.min(indent, 4)) body.push(next.slice(Math.min(indent, leadingSpaces(next))));
      else if (!ITEM.test(next) && !startsBlock(next)) body.push(next.trim());
      else break;
      i++;
    }
    items.push(parseLines(body, depth + 1));
  }
  return { block: { t: 'list', ordered, start, items }, end: i };
}

function leadingSpaces(line: string): number {
  return /^ */.exec(line)![0].length;
}

function splitRow(line: string): Inline[][] {
  const cells = line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/);
  return cells.map((cell) => parseInline(cell.trim().replace(/\\\|/g, '|')));
}
