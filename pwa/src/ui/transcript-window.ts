import type { TranscriptItem } from '../transcript/transcript.js';

/** The height (px) assumed for an item not yet measured: about a short message or a tool row. */
export const ESTIMATED_ITEM_PX = 80;
/** Pixels drawn above and below what is on screen while following the bottom. */
export const PINNED_DRAW_PX = 1600;
/**
 * Items in the DOM at most, whatever the scroll: keeps the node count bounded even when every item
 * is tiny or heights are wrong.
 */
export const MAX_WINDOW_ITEMS = 150;
/**
 * A transcript this short is drawn whole: cheap, and its heights never need estimating. Windowing
 * starts past it.
 */
export const ALWAYS_DRAW_ITEMS = 60;

export interface WindowRange {
  /** Items [start, end) are drawn. */
  start: number;
  end: number;
  /** Spacer heights (px) standing for the items before and after. */
  before: number;
  after: number;
  estimate: number;
}

/**
 * Which items to draw for a viewport (`top` and `height` in px, margin included): from measured
 * heights where known, an estimate elsewhere. Pinned to the bottom, the newest items that fill it.
 */
export function visibleRange(
  items: readonly TranscriptItem[],
  heights: ReadonlyMap<string, number>,
  top: number,
  height: number,
  pinned: boolean,
): WindowRange {
  const estimate = averageHeight(heights);
  const h = (i: number) => heights.get(items[i]!.id) ?? estimate;
  const n = items.length;
  if (n <= ALWAYS_DRAW_ITEMS) return { start: 0, end: n, before: 0, after: 0, estimate };
  let start: number;
  let end: number;
  if (pinned) {
    end = n;
    start = n;
    let filled = 0;
    const want = Math.max(height, PINNED_DRAW_PX);
    while (start > 0 && filled < want && end - start < MAX_WINDOW_ITEMS) filled += h(--start);
  } else {
    start = 0;
    let y = 0;
    while (start < n && y + h(start) < top) y += h(start++);
    end = start;
    while (end < n && y < top + height && end - start < MAX_WINDOW_ITEMS) y += h(end++);
    if (start === n && n > 0) start = end = n; // scrolled past the end: nothing
  }
  let before = 0;
  for (let i = 0; i < start; i++) before += h(i);
  let after = 0;
  for (let i = end; i < n; i++) after += h(i);
  return { start, end, before, after, estimate };
}

function averageHeight(heights: ReadonlyMap<string, number>): number {
  if (heights.size === 0) return ESTIMATED_ITEM_PX;
  let sum = 0;
  for (const value of heights.values()) sum += value;
  return sum / heights.size;
}

/** The indexes of items whose text contains `query` (case-insensitive), oldest first. */
export function findMatches(items: readonly TranscriptItem[], query: string): number[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const out: number[] = [];
  items.forEach((item, i) => {
    if (searchText(item).toLowerCase().includes(needle)) out.push(i);
  });
  return out;
}

function searchText(item: TranscriptItem): string {
  switch (item.kind) {
    case 'message':
      return item.text;
    case 'tool':
      return `${item.title}\n${item.input}\n${item.output}\n${item.diff}`;
    case 'plan':
      return item.entries.map((e) => e.content).join('\n');
    case 'approval':
      return item.approval.action;
    case 'notice':
      return item.text;
    case 'run':
      return item.error;
    case 'gap':
      return '';
  }
}
