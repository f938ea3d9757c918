import { describe, expect, it } from 'vitest';
import type { TranscriptItem } from '../transcript/transcript.js';
import {
  ALWAYS_DRAW_ITEMS,
  ESTIMATED_ITEM_PX,
  MAX_WINDOW_ITEMS,
  findMatches,
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

  it('finds over every item held, not only those drawn', () => {
    const items = notes(5000);
    expect(findMatches(items, 'NOTE 4999')).toEqual([4999]);
    expect(findMatches(items, '  ')).toEqual([]);
  });
});
