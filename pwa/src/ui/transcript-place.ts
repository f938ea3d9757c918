import type { TranscriptItem } from '../transcript/transcript.js';
import type { Anchor } from './transcript-window.js';
import { anchorAt } from './transcript-window.js';

/**
 * The reader's place as drawn: the first item on screen that is not a gap (a gap is replaced when
 * filled, so it cannot hold a place). With a gap on screen, the first item below it: its page
 * comes in between what is above and below it, and the reader, reading up, came from below.
 * Slots are in order: a binary search finds the first one reaching below the top of the screen.
 * With none drawn there (a fling past the window), the place comes from heights.
 */
export function placeOnScreen(
  el: HTMLElement,
  list: HTMLElement,
  items: readonly TranscriptItem[],
  heights: ReadonlyMap<string, number>,
): Anchor | undefined {
  const top = el.getBoundingClientRect().top;
  const bottom = top + el.clientHeight;
  const slots = list.children; // a spacer, the drawn items, a spacer
  let lo = 1;
  let hi = slots.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (slots[mid]!.getBoundingClientRect().bottom > top) hi = mid;
    else lo = mid + 1;
  }
  let first: Anchor | undefined;
  let belowGap: Anchor | undefined;
  let gapSeen = false;
  for (let i = lo; i < slots.length - 1; i++) {
    const slot = slots[i] as HTMLElement;
    const box = slot.getBoundingClientRect();
    if (box.top >= bottom) break;
    const id = slot.dataset['itemKey'];
    if (id === undefined) continue;
    if (slot.dataset['gap'] !== undefined) {
      gapSeen = true;
      belowGap = undefined;
      continue;
    }
    first ??= { id, offset: top - box.top };
    if (gapSeen) belowGap ??= { id, offset: top - box.top };
  }
  return belowGap ?? first ?? anchorAt(items, heights, top - list.getBoundingClientRect().top);
}
