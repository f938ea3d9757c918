import type { Approval, Decision, Result } from '@tether/shared-protocol';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { GapItem, PlanItem, TranscriptItem, TranscriptState } from '../transcript/transcript.js';
import { ApprovalCard } from './approval-card.js';
import { MarkdownView } from './markdown-view.js';
import { memo } from './memo.js';
import { ToolRow } from './tool-row.js';
import { findMatches, visibleRange } from './transcript-window.js';

/** Within this many pixels of the bottom counts as "following" (finger scrolls are not exact). */
const PIN_SLACK_PX = 48;
/** A gap this close (px) to the top of the screen starts reading the page that fills it. */
const LOAD_OLDER_MARGIN_PX = 800;

interface Props {
  transcript: TranscriptState;
  live: boolean;
  savedSeq: number;
  deviceId: string | undefined;
  onAnswer: ((approvalId: string, decision: Decision, note: string) => Promise<Result<Approval>>) | undefined;
  /** Reads the history page that fills the newest gap. */
  onLoadOlder?: (() => Promise<void>) | undefined;
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
 * "Jump to latest". A gap (events not on this device) reads itself in when scrolled near.
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
  const [following, setFollowing] = useState(true);
  const [viewport, setViewport] = useState({ top: 0, height: 800 });
  const [measured, setMeasured] = useState(0);
  const [find, setFind] = useState<{ query: string; at: number }>({ query: '', at: 0 });
  const items = transcript.items;

  const range = useMemo(
    () => visibleRange(items, heights.current, viewport.top, viewport.height, pinned.current),
    // `measured` bumps when heights change; the map itself is mutated in place.
    [items, viewport, measured, following],
  );
  const matches = useMemo(() => (find.query ? findMatches(items, find.query) : []), [items, find.query]);
  const focused = matches.length > 0 ? matches[Math.min(find.at, matches.length - 1)] : undefined;

  // Heights are read as the browser lays items out (a ResizeObserver), not item by item from
  // script. The same observer keeps the bottom in view while following as items grow after they
  // were drawn (a tool row opened) or the screen shrinks (the keyboard).
  const observer = useRef<ResizeObserver | undefined>(undefined);
  const observed = useRef(new Set<Element>());
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !log.current) return undefined;
    const resized = new ResizeObserver((entries) => {
      let changed = false;
      for (const entry of entries) {
        const slot = entry.target as HTMLElement;
        const key = slot.dataset['itemKey'];
        if (key === undefined || !slot.isConnected) continue;
        // Read after layout, so this costs no layout of its own.
        const height = slot.offsetHeight + GAP_PX;
        if (heights.current.get(key) !== height) {
          heights.current.set(key, height);
          changed = true;
        }
      }
      if (pinned.current) el.scrollTop = el.scrollHeight;
      if (changed) setMeasured((n) => n + 1);
    });
    resized.observe(el);
    resized.observe(log.current);
    observer.current = resized;
    const slots = observed.current;
    return () => {
      resized.disconnect();
      slots.clear();
    };
  }, []);

  // Following, every change is scrolled into view before it is painted: a scroll event would
  // otherwise see new items below the screen and take it for the person scrolling up.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

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

  // A gap near the top of the screen fills itself (one page at a time).
  const gapShown = items.slice(range.start, range.end).some((item) => item.kind === 'gap');
  useEffect(() => {
    if (gapShown && onLoadOlder && !loadingOlder && !olderError) void onLoadOlder();
  }, [gapShown, onLoadOlder, loadingOlder, olderError, transcript]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollHeight - el.scrollTop - el.clientHeight <= PIN_SLACK_PX;
    pinned.current = atBottom;
    setFollowing(atBottom);
    const top = el.scrollTop - LOAD_OLDER_MARGIN_PX / 2;
    const height = el.clientHeight + LOAD_OLDER_MARGIN_PX;
    // Following the bottom, the window is the newest items wherever the top is: following a run
    // scrolls with every step, and none of those scrolls needs drawing anew.
    setViewport((now) => (atBottom && now.height === height ? now : { top, height }));
  };

  const jump = () => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = true;
    setFollowing(true);
    el.scrollTop = el.scrollHeight;
  };

  const show = (index: number) => {
    const el = scroller.current;
    if (!el) return;
    pinned.current = false;
    setFollowing(false);
    let top = 0;
    for (let i = 0; i < index; i++) top += heights.current.get(items[i]!.id) ?? range.estimate;
    el.scrollTop = Math.max(0, top - 40);
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

  const hasGaps = items.some((item) => item.kind === 'gap');
  const step = (by: number) =>
    setFind((f) => ({ ...f, at: matches.length === 0 ? 0 : (f.at + by + matches.length) % matches.length }));

  return (
    <div class="transcript-wrap">
      {findOpen && (
        <form
          class="find-bar"
          role="search"
          onSubmit={(event) => {
            event.preventDefault();
            step(1);
          }}
        >
          <input
            type="search"
            aria-label="Find in transcript"
            placeholder="Find in transcript"
            value={find.query}
            autoFocus
            onInput={(event) => setFind({ query: event.currentTarget.value, at: matches.length })}
            onKeyDown={(event) => {
              if (event.key === 'Escape') onFind(false);
            }}
          />
          <span class="find-count" aria-live="polite">
            {find.query
              ? `${matches.length === 0 ? 0 : Math.min(find.at, matches.length - 1) + 1} of ${matches.length}`
              : ''}
            {hasGaps && find.query ? ' (older events still loading)' : ''}
          </span>
          <button type="button" onClick={() => step(-1)} aria-label="Previous match">
            ↑
          </button>
          <button type="submit" aria-label="Next match">
            ↓
          </button>
          <button type="button" onClick={() => onFind(false)}>
            Done
          </button>
        </form>
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
        >
          <div class="spacer" style={{ height: `${range.before}px` }} aria-hidden="true" />
          {items.slice(range.start, range.end).map((item, i) => (
            <div key={item.id} data-item-key={item.id} class={`slot${focused === range.start + i ? ' found' : ''}`}>
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

/** The flex gap between transcript items (transcript.css), counted in each item's height. */
const GAP_PX = 10;

function Gap({
  gap,
  loading,
  error,
  onLoad,
}: {
  gap: GapItem;
  loading: boolean;
  error: string | undefined;
  onLoad: (() => Promise<void>) | undefined;
}) {
  const count = gap.to - gap.after;
  return (
    <p class="notice gap" data-gap-after={gap.after} data-gap-to={gap.to}>
      {loading
        ? `Loading ${count} earlier events…`
        : error
          ? `${count} earlier events could not be loaded: ${error}`
          : `${count} earlier events`}{' '}
      {!loading && onLoad && (
        <button type="button" onClick={() => void onLoad()}>
          {error ? 'Try again' : 'Load'}
        </button>
      )}
    </p>
  );
}

/** An item, drawn again only when it changed: folding an event replaces just the items it touched. */
const Item = memo(function Item({
  item,
  deviceId,
  onAnswer,
}: { item: TranscriptItem } & Pick<Props, 'deviceId' | 'onAnswer'>) {
  switch (item.kind) {
    case 'message':
      return item.role === 'user' ? (
        <div class="msg user" data-message-id={item.id}>
          <span class="visually-hidden">You: </span>
          {item.text}
        </div>
      ) : (
        <div
          class={`msg assistant${item.streaming ? ' streaming' : ''}`}
          data-message-id={item.id}
          data-streaming={item.streaming ? 'true' : 'false'}
        >
          <MarkdownView text={item.text} />
        </div>
      );
    case 'tool':
      return <ToolRow item={item} />;
    case 'plan':
      return <PlanView item={item} />;
    case 'approval':
      return (
        <ApprovalCard
          approval={item.approval}
          deviceId={deviceId}
          onAnswer={onAnswer && ((decision, note) => onAnswer(item.approval.id, decision, note))}
        />
      );
    case 'notice':
      return <p class={`notice ${item.level}`}>{item.text}</p>;
    case 'run':
      return (
        <p class="run-end" data-run-status={item.status}>
          {item.status === 'done' ? 'Run finished' : item.status === 'interrupted' ? 'Run interrupted' : 'Run failed'}
          {item.error ? `: ${item.error}` : ''}
        </p>
      );
    case 'gap':
      return null;
  }
});

const PLAN_MARK: Record<PlanItem['entries'][number]['status'], string> = {
  pending: '☐',
  in_progress: '▶',
  completed: '☑',
};
const PLAN_LABEL: Record<PlanItem['entries'][number]['status'], string> = {
  pending: 'to do',
  in_progress: 'in progress',
  completed: 'done',
};

/** The agent's plan as a checklist (its text as text). */
function PlanView({ item }: { item: PlanItem }) {
  return (
    <section class="plan" data-plan-id={item.id} aria-label="Plan">
      <h3>Plan</h3>
      <ul>
        {item.entries.map((entry, i) => (
          <li key={i} data-status={entry.status}>
            <span class="plan-mark" aria-label={PLAN_LABEL[entry.status]}>
              {PLAN_MARK[entry.status]}
            </span>{' '}
            {entry.content}
          </li>
        ))}
      </ul>
    </section>
  );
}
