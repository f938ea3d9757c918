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
/**
 * A window starting this close (items) to the first item starts at it instead: the first items
 * are then drawn, and measured, before the reader reaches the top. Otherwise the top could come
 * with heights still estimated above the reader's place, and with no room above 0 to scroll, a
 * wrong estimate would move the place.
 */
export const NEAR_START_ITEMS = 30;

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
    if (start === n && n > 0)
      start = end = n; // scrolled past the end: nothing
    else if (start <= NEAR_START_ITEMS && end <= MAX_WINDOW_ITEMS) start = 0;
  }
  let before = 0;
  for (let i = 0; i < start; i++) before += h(i);
  let after = 0;
  for (let i = end; i < n; i++) after += h(i);
  return { start, end, before, after, estimate };
}

/**
 * The reader's place: an item and how far (px) the top of the screen lies below the item's top
 * (negative when the item starts below the top of the screen). Kept across items inserted above
 * (a history page), items dropped from the front, and heights that change (an estimate replaced
 * by a measurement), so that what the reader looks at stays where it is on screen.
 */
export interface Anchor {
  id: string;
  offset: number;
}

/**
 * The place at scroll position `scrollTop` (px), from heights alone: the first item, not a gap,
 * whose bottom lies below `scrollTop`. A gap is never the anchor: filling it replaces it.
 * Undefined when no such item exists.
 */
export function anchorAt(
  items: readonly TranscriptItem[],
  heights: ReadonlyMap<string, number>,
  scrollTop: number,
): Anchor | undefined {
  const estimate = averageHeight(heights);
  let y = 0;
  for (const item of items) {
    const h = heights.get(item.id) ?? estimate;
    if (item.kind !== 'gap' && y + h > scrollTop) return { id: item.id, offset: scrollTop - y };
    y += h;
  }
  return undefined;
}

/**
 * The scroll position (px) that shows `anchor` where it was, from heights (estimated where not
 * measured); undefined when the item is no longer held. Never below 0.
 */
export function scrollTopFor(
  items: readonly TranscriptItem[],
  heights: ReadonlyMap<string, number>,
  anchor: Anchor,
): number | undefined {
  const estimate = averageHeight(heights);
  let y = 0;
  for (const item of items) {
    if (item.id === anchor.id) return Math.max(0, y + anchor.offset);
    y += heights.get(item.id) ?? estimate;
  }
  return undefined;
}

/**
 * How far (px) to scroll so that the anchor is back in place, from where it is drawn now:
 * `drawnOffset` is the anchor's offset as measured on screen (the top of the screen minus the
 * item's top). Positive scrolls down. Movements under half a pixel are left alone: they are
 * rounding, and a scroll written for them would fight a finger's.
 */
export function anchorCorrection(anchor: Anchor, drawnOffset: number): number {
  const delta = anchor.offset - drawnOffset;
  return Math.abs(delta) < 0.5 ? 0 : delta;
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
