import type { SessionEvent } from '@tether/shared-protocol';
import type { GapItem, PlanItem, TranscriptItem, TranscriptState } from './transcript.js';
import { EMPTY_TRANSCRIPT, applyEvent, bound, endStreaming } from './transcript.js';

/**
 * The parts of a transcript not read yet: a tail watch skips to the newest events and leaves a
 * gap, and history pages fill it from the newest end, each item shown once whatever the order its
 * events were read in.
 */

/**
 * A tail watch left out the events in (after, to]: the transcript goes on after `to`, with a gap
 * that history pages fill in later. A skip that does not start at `lastSeq` is ignored.
 */
export function skipTo(state: TranscriptState, after: number, to: number): TranscriptState {
  if (after !== state.lastSeq || to <= after) return state;
  const gap: GapItem = { kind: 'gap', id: `gap:${to}`, seq: after + 1, after, to };
  return bound({ ...state, lastSeq: to, items: [...endStreaming([...state.items]), gap] });
}

/** The gaps still to fill, newest first (the one nearest the screen's bottom first). */
export function gaps(state: TranscriptState): GapItem[] {
  const out: GapItem[] = [];
  for (let i = state.items.length - 1; i >= 0; i--) {
    const item = state.items[i]!;
    if (item.kind === 'gap') out.push(item);
  }
  return out;
}

/**
 * Fills the newest part of a gap with a history page: `events` (oldest first) cover (pageAfter,
 * gap.to]. They are folded on their own and put in the gap's place, with what remains of the gap
 * (after, pageAfter] before them. An item already shown after the gap (a tool call that started
 * inside it and finished after) keeps its place there. An item already shown before the gap (a
 * reply or a tool call the gap cut short) keeps its place too, and takes what the page says of
 * it (`finish`): an item appears once, whatever the order its events were read in.
 */
export function fillGap(
  state: TranscriptState,
  gapId: string,
  events: readonly SessionEvent[],
  pageAfter: number,
): TranscriptState {
  const index = state.items.findIndex((item) => item.id === gapId);
  const gap = state.items[index];
  if (!gap || gap.kind !== 'gap') return state;
  const from = Math.max(pageAfter, gap.after);
  let part: TranscriptState = { ...EMPTY_TRANSCRIPT, lastSeq: from };
  for (const event of events) {
    if (event.seq <= from || event.seq > gap.to) continue;
    // Rows the host could not decode are skipped, not asked for again: step over them.
    if (event.seq > part.lastSeq + 1) part = { ...part, lastSeq: event.seq - 1 };
    part = applyEvent(part, event).state;
  }
  const later = new Set(state.items.slice(index + 1).map((item) => item.id));
  const earlier = new Map(state.items.slice(0, index).map((item, i) => [item.id, i]));
  const before = state.items.slice(0, index);
  const filled: TranscriptItem[] = [];
  for (const item of part.items) {
    const at = earlier.get(item.id);
    if (at !== undefined) before[at] = finish(before[at]!, item);
    else if (!later.has(item.id)) filled.push(item);
  }
  const rest: TranscriptItem[] =
    from > gap.after ? [{ kind: 'gap', id: `gap:${from}`, seq: gap.after + 1, after: gap.after, to: from }] : [];
  const items = [...before, ...rest, ...filled, ...state.items.slice(index + 1)];
  return { ...state, items, applied: state.applied + part.applied };
}

/**
 * An item shown before a gap, and what a page from inside the gap made of the same id (folded
 * without the start it holds). Pages are read newest first, so a page may be older than what the
 * item already took from another: only what moves forward is taken. A whole message, a finished
 * tool's result, an answered approval, a plan with as much done; not deltas, a running tool, a
 * pending approval over an answered one, or a plan with less done. What the page lacks stays (a
 * tool's title and input).
 */
function finish(shown: TranscriptItem, page: TranscriptItem): TranscriptItem {
  if (shown.kind === 'message' && page.kind === 'message')
    return page.streaming ? shown : { ...shown, role: page.role, text: page.text, streaming: false };
  if (shown.kind === 'tool' && page.kind === 'tool') {
    if (page.status === 'running') return shown;
    return {
      ...shown,
      status: page.status,
      output: page.output,
      truncated: page.truncated,
      exitCode: page.exitCode,
      toolKind: page.toolKind || shown.toolKind,
      diff: page.diff || shown.diff,
      diffTruncated: page.diff ? page.diffTruncated : shown.diffTruncated,
    };
  }
  if (shown.kind === 'approval' && page.kind === 'approval')
    return page.approval.status === 'pending' && shown.approval.status !== 'pending'
      ? shown
      : { ...page, seq: shown.seq };
  if (shown.kind === 'plan' && page.kind === 'plan')
    return progress(page) >= progress(shown) ? { ...page, seq: shown.seq } : shown;
  return shown;
}

/** How far a plan has got: entries done count twice, entries under way once. */
function progress(plan: PlanItem): number {
  let n = 0;
  for (const entry of plan.entries) n += entry.status === 'completed' ? 2 : entry.status === 'in_progress' ? 1 : 0;
  return n;
}
