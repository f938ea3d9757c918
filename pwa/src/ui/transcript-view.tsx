import type { Approval, Decision, Result } from '@tether/shared-protocol';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { TranscriptState } from '../transcript/transcript.js';
import { memo } from './memo.js';
import type { FindState } from './transcript-find.js';
import { FindBar } from './transcript-find.js';
import { Gap, Item } from './transcript-item.js';
import { placeOnScreen } from './transcript-place.js';
import type { Anchor } from './transcript-window.js';
import { anchorCorrection, findMatches, scrollTopFor, visibleRange } from './transcript-window.js';

/** Within this many pixels of the bottom counts as "following" (finger scrolls are not exact). */
const PIN_SLACK_PX = 48;
/**
 * Pixels drawn beyond the screen, half above and half below. A gap drawn there (within 400 px of
 * the screen) starts reading the page that fills it, so a page comes in as the reader nears it.
 */
const LOAD_OLDER_MARGIN_PX = 800;
/** A match found is shown this far (px) below the top of the screen. */
const FOUND_BELOW_TOP_PX = 40;
/** The flex gap between transcript items (transcript.css), counted in each item's height. */
const GAP_PX = 10;

interface Props {
  transcript: TranscriptState;
  live: boolean;
  savedSeq: number;
  deviceId: string | undefined;
  onAnswer: ((approvalId: string, decision: Decision, note: string) => Promise<Result<Approval>>) | undefined;
  /** Reads the history page that fills this gap (its newest part), or the newest gap. */
  onLoadOlder?: ((gapId?: string) => Promise<void>) | undefined;
  loadingOlder?: boolean;
  olderError?: string | undefined;
  /** The find bar is open (its button is the screen's, in the top bar). */
  findOpen: boolean;
  /** Opens or closes the find bar (Ctrl/⌘+F opens it, Escape and Done close it). */
  onFind: (open: boolean) => void;
}

/**
 * The transcript, windowed: only the items on screen plus a margin are in the DOM, whatever the
 * session's length; the rest are spacers of their measured (or estimated) height. While the person
 * is at the bottom it follows new output; once they scroll up it stays where they are and offers
 * "Jump to latest". A gap (events not on this device) reads itself in, a page at a time, when
 * scrolled near.
 *
 * Scrolled up, the reader's place is an anchor: the item at the top of the screen and how far into
 * it the screen starts. A history page inserted above it, an estimate replaced by a measured
 * height, a spacer that changes with the average: after each, the scroll position is set so the
 * anchor is drawn exactly where it was, before the browser paints (after each render and in the
 * ResizeObserver). Script does this, not CSS scroll anchoring: WebKit has none, and the CSS kind is
 * turned off (`overflow-anchor: none`) so that both engines behave the same.
 */
export const TranscriptView = memo(function TranscriptView({
  transcript,
  live,
  savedSeq,
  deviceId,
  onAnswer,
  onLoadOlder,
  loadingOlder,
  olderError,
  findOpen,
  onFind,
}: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const pinned = useRef(true);
  /** Where the reader is, while not following the bottom. */
  const anchor = useRef<Anchor | undefined>(undefined);
  /**
   * The scroll position (px) as the app last set or saw it; another one is a scroll of the
   * reader's. Its event comes a frame later, and a render can come between: the app takes the
   * scroll in before it moves the screen (`keepPlace`), rather than undo it.
   */
  const seen = useRef(0);
  /** The place was moved by a scroll of the reader's taken in early: its event takes it again. */
  const retake = useRef(false);
  const [following, setFollowing] = useState(true);
  const [viewport, setViewport] = useState({ top: 0, height: 800 });
  const [measured, setMeasured] = useState(0);
  const [find, setFind] = useState<FindState>({ query: '', at: 0 });
  const items = transcript.items;

  // Not following, the window is drawn around the reader's place, wherever items came, went or
  // changed height above it (the anchor is then in the DOM, to be measured and put back exactly).
  const place = !pinned.current && anchor.current ? scrollTopFor(items, heights.current, anchor.current) : undefined;
  const top = place !== undefined ? place - LOAD_OLDER_MARGIN_PX / 2 : viewport.top;
  const range = useMemo(
    () => visibleRange(items, heights.current, top, viewport.height, pinned.current),
    // `measured` bumps when heights change; the map itself is mutated in place.
    [items, top, viewport, measured, following],
  );
  const matches = useMemo(() => (find.query ? findMatches(items, find.query) : []), [items, find.query]);
  const focused = matches.length > 0 ? matches[Math.min(find.at, matches.length - 1)] : undefined;

  /**
   * Scrolls so that the anchor is drawn where it belongs: one read of two boxes (layout is clean
   * in a ResizeObserver callback; after a render it is due before paint anyway) and at most one
   * write. Nothing to do while following, or when the anchor is not drawn.
   */
  const holdPlace = useRef(() => {
    const el = scroller.current;
    const place = anchor.current;
    if (!el || !log.current || !place || pinned.current) return;
    const slot = log.current.querySelector(`[data-item-key="${CSS.escape(place.id)}"]`);
    if (!slot) return;
    const by = anchorCorrection(place, el.getBoundingClientRect().top - slot.getBoundingClientRect().top);
    if (by === 0) return;
    el.scrollTop += by;
    seen.current = el.scrollTop;
  }).current;

  /**
   * After a change (a render, a size measured), before paint: the bottom in view while following,
   * the reader's place held otherwise. A scroll of the reader's that the app has not seen yet
   * counts first. Scrolled up, the place moves with it, exactly (its event then takes the place
   * again from the screen, to follow the item now in view). Following, one that left the bottom
   * is not undone: its event stops following.
   */
  const keepPlace = useRef(() => {
    const el = scroller.current;
    if (!el) return;
    const moved = el.scrollTop - seen.current;
    if (pinned.current) {
      if (moved !== 0 && el.scrollHeight - el.scrollTop - el.clientHeight > PIN_SLACK_PX) return;
      el.scrollTop = el.scrollHeight;
      seen.current = el.scrollTop;
      return;
    }
    const place = anchor.current;
    if (moved !== 0 && place) {
      anchor.current = { id: place.id, offset: place.offset + moved };
      seen.current = el.scrollTop;
      retake.current = true;
    }
    holdPlace();
  }).current;

  // Heights are read as the browser lays items out (a ResizeObserver), not item by item from
  // script. The same observer keeps the bottom in view while following as items grow after they
  // were drawn (a tool row opened) or the screen shrinks (the keyboard), and the reader's place
  // where it is otherwise.
  const observer = useRef<ResizeObserver | undefined>(undefined);
  const observed = useRef(new Set<Element>());
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !log.current) return undefined;
    /** The frame that draws the window again with new heights (0: none asked for). */
    let redraw = 0;
    const resized = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const slot = entry.target as HTMLElement;
        const key = slot.dataset['itemKey'];
        if (key === undefined || !slot.isConnected) continue;
        // Read after layout, so this costs no layout of its own. Fractional, as the layout has it:
        // whole pixels would be up to half a pixel off per item, and a spacer adds up hundreds.
        const box = entry.borderBoxSize?.[0];
        const height = (box ? box.blockSize : entry.contentRect.height) + GAP_PX;
        if (heights.current.get(key) !== height) {
          heights.current.set(key, height);
          changed = true;
        }
      }
      keepPlace();
      // Drawn again with the new heights at the next frame, not in this callback's microtasks: a
      // render there resizes what this observer watches (spacers, new slots) within its own
      // delivery, which browsers deliver a frame late anyway and report as a page error ("loop
      // completed with undelivered notifications"). Until then the place is held as measured.
      if (changed && redraw === 0)
        redraw = requestAnimationFrame(() => {
          redraw = 0;
          setMeasured((n) => n + 1);
        });
    });
    resized.observe(el);
    resized.observe(log.current);
    observer.current = resized;
    const slots = observed.current;
    return () => {
      cancelAnimationFrame(redraw);
      resized.disconnect();
      slots.clear();
    };
  }, []);

  // Following, every change is scrolled into view before it is painted: a scroll event would
  // otherwise see new items below the screen and take it for the person scrolling up. Scrolled up,
  // the reader's place is put back before it is painted.
  useLayoutEffect(() => keepPlace());

  const { start, end } = range;
  useLayoutEffect(() => {
    const resized = observer.current;
    const el = log.current;
    if (!resized || !el) return;
    const slots = observed.current;
    for (const slot of slots) {
      if (slot.isConnected) continue;
      resized.unobserve(slot);
      slots.delete(slot);
    }
    for (const slot of el.querySelectorAll('[data-item-key]')) {
      if (slots.has(slot)) continue;
      resized.observe(slot);
      slots.add(slot);
    }
  }, [items, start, end]);

  // A gap drawn (on screen or within the margin) fills itself, one page at a time: the page comes
  // in above the reader's place, which stays, so the next page waits until the reader nears it.
  const gapShown = items.slice(range.start, range.end).find((item) => item.kind === 'gap')?.id;
  useEffect(() => {
    if (gapShown !== undefined && onLoadOlder && !loadingOlder && !olderError) void onLoadOlder(gapShown);
  }, [gapShown, onLoadOlder, loadingOlder, olderError]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el || !log.current) return;
    // A position the app set itself (to follow, or to hold the place) leaves the place as it is:
    // taken again from the screen it would take in the move's rounding (WebKit scrolls by whole
    // pixels), and a few moves would add up to pixels.
    if (el.scrollTop !== seen.current || retake.current) {
      seen.current = el.scrollTop;
      retake.current = false;
      const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX;
      pinned.current = atBottom;
      anchor.current = atBottom ? undefined : placeOnScreen(el, log.current, items, heights.current);
    }
    const follow = pinned.current;
    setFollowing(follow);
    const top = el.scrollTop - LOAD_OLDER_MARGIN_PX / 2;
    const height = el.clientHeight + LOAD_OLDER_MARGIN_PX;
    // Following the bottom, the window is the newest items wherever the top is: following a run
    // scrolls with every step, and none of those scrolls needs drawing anew.
    setViewport((now) => (follow && now.height === height ? now : { top, height }));
  };

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    anchor.current = undefined;
    setFollowing(true);
    el.scrollTop = el.scrollHeight;
    seen.current = el.scrollTop;
  };

  // A match becomes the reader's place: the window is drawn around it, and it is put in place.
  const show = (index: number) => {
    const el = scroller.current;
    const item = items[index];
    if (!el || !item) return;
    pinned.current = false;
    anchor.current = { id: item.id, offset: -FOUND_BELOW_TOP_PX };
    setFollowing(false);
    setViewport({ top: el.scrollTop - LOAD_OLDER_MARGIN_PX / 2, height: el.clientHeight + LOAD_OLDER_MARGIN_PX });
  };

  useEffect(() => {
    if (focused !== undefined) show(focused);
  }, [focused, find.query]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.metaKey || event.ctrlKey) && event.key === 'f') {
        event.preventDefault();
        onFind(true);
      } else if ((event.metaKey || event.ctrlKey) && event.key === 'ArrowDown') {
        event.preventDefault();
        jump();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onFind]);

  // Closed, the search is forgotten: the next Find starts empty.
  useEffect(() => {
    if (!findOpen) setFind({ query: '', at: 0 });
  }, [findOpen]);

  return (
    <div class="transcript-wrap">
      {findOpen && (
        <FindBar
          find={find}
          setFind={setFind}
          matches={matches}
          hasGaps={items.some((item) => item.kind === 'gap')}
          onFind={onFind}
        />
      )}
      <div class="scroll" ref={scroller} onScroll={onScroll}>
        <div
          class="transcript"
          ref={log}
          role="log"
          aria-live="polite"
          aria-label="Transcript"
          data-last-seq={transcript.lastSeq}
          data-applied={transcript.applied}
          data-saved-seq={savedSeq}
          data-items={items.length}
          data-gaps={items.filter((item) => item.kind === 'gap').length}
          data-live={live ? 'true' : 'false'}
          data-loading-older={loadingOlder ? 'true' : 'false'}
        >
          <div class="spacer" style={{ height: `${range.before}px` }} aria-hidden="true" />
          {items.slice(range.start, range.end).map((item, i) => (
            <div
              key={item.id}
              data-item-key={item.id}
              data-gap={item.kind === 'gap' ? '' : undefined}
              class={`slot${focused === range.start + i ? ' found' : ''}`}
            >
              {item.kind === 'gap' ? (
                <Gap gap={item} loading={loadingOlder ?? false} error={olderError} onLoad={onLoadOlder} />
              ) : (
                <Item item={item} deviceId={deviceId} onAnswer={onAnswer} />
              )}
            </div>
          ))}
          <div class="spacer" style={{ height: `${range.after}px` }} aria-hidden="true" />
        </div>
      </div>
      {!following && (
        <button type="button" class="jump primary" onClick={jump}>
          Jump to latest ↓
        </button>
      )}
    </div>
  );
});
