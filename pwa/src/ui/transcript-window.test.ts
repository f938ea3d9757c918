import type { SessionEvent } from '@tether/shared-protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TranscriptItem } from '../transcript/transcript.js';
import { EMPTY_TRANSCRIPT, foldEvents } from '../transcript/transcript.js';
import { fillGap, gaps, skipTo } from '../transcript/transcript-gaps.js';
import {
  ALWAYS_DRAW_ITEMS,
  ESTIMATED_ITEM_PX,
  MAX_WINDOW_ITEMS,
  NEAR_START_ITEMS,
  anchorAt,
  anchorCorrection,
  findMatches,
  scrollTopFor,
  visibleRange,
} from './transcript-window.js';

const notes = (n: number): TranscriptItem[] =>
  Array.from({ length: n }, (_, i) => ({ kind: 'notice', id: `n${i}`, seq: i + 1, level: 'info', text: `note ${i}` }));

describe('the transcript window', () => {
  it('draws a bounded number of items whatever the length, and spacers for the rest', () => {
    for (const n of [ALWAYS_DRAW_ITEMS + 1, 1000, 20_000]) {
      const items = notes(n);
      const pinned = visibleRange(items, new Map(), 0, 800, true);
      expect(pinned.end).toBe(n);
      expect(pinned.end - pinned.start).toBeLessThanOrEqual(MAX_WINDOW_ITEMS);
      expect(pinned.before + pinned.after + (pinned.end - pinned.start) * ESTIMATED_ITEM_PX).toBe(
        n * ESTIMATED_ITEM_PX,
      );
      const top = visibleRange(items, new Map(), 0, 800, false);
      expect(top.start).toBe(0);
      expect(top.end).toBe(10);
    }
  });

  it('draws a short transcript whole', () => {
    const range = visibleRange(notes(ALWAYS_DRAW_ITEMS), new Map(), 0, 100, false);
    expect([range.start, range.end, range.before, range.after]).toEqual([0, ALWAYS_DRAW_ITEMS, 0, 0]);
  });

  it('uses measured heights for where the viewport falls', () => {
    const items = notes(100);
    const heights = new Map(items.map((item, i) => [item.id, i < 50 ? 20 : 200]));
    const range = visibleRange(items, heights, 50 * 20 + 450, 400, false);
    expect(range.start).toBe(52);
    expect(range.before).toBe(50 * 20 + 2 * 200);
    expect(range.end).toBe(55);
  });

  it('reaches back to the first item once near it, so the top is measured before it shows', () => {
    const items = notes(1000);
    const heights = new Map<string, number>();
    const near = visibleRange(items, heights, NEAR_START_ITEMS * ESTIMATED_ITEM_PX, 800, false);
    expect(near.start).toBe(0);
    expect(near.before).toBe(0);
    const far = visibleRange(items, heights, (NEAR_START_ITEMS + 2) * ESTIMATED_ITEM_PX, 800, false);
    expect(far.start).toBe(NEAR_START_ITEMS + 1);
  });

  it('finds over every item held, not only those drawn', () => {
    const items = notes(5000);
    expect(findMatches(items, 'NOTE 4999')).toEqual([4999]);
    expect(findMatches(items, '  ')).toEqual([]);
  });
});

/** Notices with seq `from`…`to`, one item each (`notice:<seq>`). */
const noticeEvents = (from: number, to: number): SessionEvent[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({
    type: 'notice',
    level: 'info',
    text: `event ${from + i}`,
    sessionId: 's1',
    seq: from + i,
    at: from + i,
  }));

/** Where the item's top lies (px from the top of the content), as the spacers draw it. */
const topOf = (items: readonly TranscriptItem[], heights: ReadonlyMap<string, number>, id: string): number => {
  const range = visibleRange(items, heights, 0, 0, false);
  let y = 0;
  for (const item of items) {
    if (item.id === id) return y;
    y += heights.get(item.id) ?? range.estimate;
  }
  throw new Error(`no item ${id}`);
};

describe("the reader's place", () => {
  it('is the first item, not a gap, whose bottom is below the top of the screen', () => {
    const items: TranscriptItem[] = [{ kind: 'gap', id: 'gap:10', seq: 1, after: 0, to: 10 }, ...notes(5)];
    const heights = new Map<string, number>([
      ['gap:10', 30],
      ...items.slice(1).map((i): [string, number] => [i.id, 100]),
    ]);
    // Inside the gap: the item after it, which starts 20 px below the top of the screen.
    expect(anchorAt(items, heights, 10)).toEqual({ id: 'n0', offset: -20 });
    expect(anchorAt(items, heights, 30)).toEqual({ id: 'n0', offset: 0 });
    expect(anchorAt(items, heights, 30 + 250)).toEqual({ id: 'n2', offset: 50 });
    expect(anchorAt(items, heights, 30 + 500)).toBeUndefined();
  });

  it('stays on screen where it was when a history page fills the gap above it', () => {
    // A tail watch skipped events 1–1000 and replayed 1001–1100; pages of 300 fill the gap.
    let state = skipTo(EMPTY_TRANSCRIPT, 0, 1000);
    state = foldEvents(state, noticeEvents(1001, 1100));
    const heights = new Map<string, number>(state.items.map((item) => [item.id, item.kind === 'gap' ? 40 : 60]));
    const reading = 'notice:1003';
    const scrollTop = topOf(state.items, heights, reading) + 25;
    const anchor = anchorAt(state.items, heights, scrollTop)!;
    expect(anchor).toEqual({ id: reading, offset: 25 });

    for (let page = 0; page < 3; page++) {
      const gap = gaps(state)[0]!;
      const before = scrollTopFor(state.items, heights, anchor)!;
      state = fillGap(state, gap.id, noticeEvents(gap.to - 299, gap.to), gap.to - 300);
      const after = scrollTopFor(state.items, heights, anchor)!;
      // Pushed down by what came in above it: the 300 new items at the estimate (60 px, the average
      // of what is measured), the remaining gap at it too, less the old gap's 40 px.
      const estimate = visibleRange(state.items, heights, 0, 0, false).estimate;
      expect(after - before).toBeCloseTo(301 * estimate - (heights.get(gap.id) ?? estimate), 6);
      // The window drawn there holds the anchor, so the screen can measure it and hold it exactly.
      const range = visibleRange(state.items, heights, after - 400, 1600, false);
      const index = state.items.findIndex((item) => item.id === reading);
      expect(index).toBeGreaterThanOrEqual(range.start);
      expect(index).toBeLessThan(range.end);
      expect(anchorAt(state.items, heights, after)).toEqual(anchor);
    }
  });

  it('moves with a height measured above it, not with one below it', () => {
    const items = notes(100);
    const heights = new Map(items.map((item) => [item.id, 50]));
    const anchor = { id: 'n40', offset: 12 };
    const at = scrollTopFor(items, heights, anchor)!;
    expect(at).toBe(40 * 50 + 12);
    heights.set('n10', 50 + 92);
    expect(scrollTopFor(items, heights, anchor)! - at).toBe(92);
    heights.set('n10', 50);
    heights.set('n60', 400);
    expect(scrollTopFor(items, heights, anchor)).toBe(at);
    // Its own height changing keeps its top where it is.
    heights.set('n40', 300);
    expect(scrollTopFor(items, heights, anchor)).toBe(at);
  });

  it('follows the estimate for items not yet measured, as the spacers do', () => {
    const items = notes(200);
    const heights = new Map<string, number>(items.slice(150).map((item) => [item.id, 40]));
    const anchor = { id: 'n160', offset: 0 };
    const first = scrollTopFor(items, heights, anchor)!;
    expect(first).toBe(150 * 40 + 10 * 40);
    // Tall items measured elsewhere raise the estimate for the 150 unmeasured ones above.
    for (let i = 195; i < 200; i++) heights.set(`n${i}`, 440);
    const estimate = visibleRange(items, heights, 0, 0, false).estimate;
    expect(estimate).toBe(80);
    expect(scrollTopFor(items, heights, anchor)).toBe(150 * estimate + 10 * 40);
    expect(scrollTopFor(items, heights, anchor)).toBe(topOf(items, heights, 'n160'));
  });

  it('follows items dropped from the front, and is lost with its own item', () => {
    const items = notes(100);
    const heights = new Map(items.map((item) => [item.id, 50]));
    const anchor = { id: 'n50', offset: 5 };
    expect(scrollTopFor(items.slice(20), heights, anchor)).toBe(30 * 50 + 5);
    expect(scrollTopFor(items.slice(51), heights, anchor)).toBeUndefined();
    expect(scrollTopFor(items, heights, { id: 'n0', offset: -30 })).toBe(0);
  });

  it('is found again at the scroll position it was taken from, whatever the heights', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.boolean(), height: fc.option(fc.integer({ min: 1, max: 900 })) }), {
          minLength: 1,
          maxLength: 80,
        }),
        fc.integer({ min: 0, max: 80 * 900 }),
        (specs, scrollTop) => {
          const items: TranscriptItem[] = specs.map((spec, i) =>
            spec.gap
              ? { kind: 'gap', id: `g${i}`, seq: i, after: i, to: i + 1 }
              : { kind: 'notice', id: `n${i}`, seq: i, level: 'info', text: '' },
          );
          const heights = new Map<string, number>();
          specs.forEach((spec, i) => spec.height !== null && heights.set(items[i]!.id, spec.height));
          const anchor = anchorAt(items, heights, scrollTop);
          if (!anchor) return;
          expect(items.find((item) => item.id === anchor.id)?.kind).not.toBe('gap');
          expect(scrollTopFor(items, heights, anchor)).toBeCloseTo(scrollTop, 6);
        },
      ),
    );
  });

  it('is corrected by the distance between where it is drawn and where it belongs', () => {
    // Drawn 30 px lower than it belongs (its offset 10 where 40 is wanted): scroll down 30.
    expect(anchorCorrection({ id: 'x', offset: 40 }, 10)).toBe(30);
    expect(anchorCorrection({ id: 'x', offset: -20 }, 72)).toBe(-92);
    expect(anchorCorrection({ id: 'x', offset: 40 }, 40.3)).toBe(0);
  });
});
