import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { compactionLine } from '@tether/shared-protocol';
import type { GapItem, ToolItem, TranscriptItem, TranscriptState } from './transcript-items.js';

/**
 * A session's transcript as the app shows it, folded from the session's event log. Folding is
 * incremental (`applyEvent`), so the state can be cached, shown at once on open, and carried on
 * from its `lastSeq` when the watch resumes. Gaps (events a tail watch skipped or the bound
 * dropped) are filled from history pages by `transcript-gaps.ts`.
 */
export type * from './transcript-items.js';

/**
 * Items held in memory per transcript: beyond it the oldest become a gap (read again from the host
 * when scrolled to). Far more than a person scrolls through; it bounds memory, not the session.
 */
export const MAX_ITEMS = 20_000;
/** Items written to the cache per transcript: the newest; older ones are fetched again as pages. */
export const CACHED_ITEMS = 400;
/** A tool call's input is for reading, not for re-running: 16 K characters is plenty. */
export const MAX_TOOL_INPUT_CHARS = 16 * 1024;

export const EMPTY_TRANSCRIPT: TranscriptState = { lastSeq: 0, applied: 0, dropped: 0, items: [], summary: null };

export type FoldOutcome = 'applied' | 'duplicate' | 'gap';

/**
 * Folds one event in. Only the next sequence number is taken: an older one is a duplicate and a
 * newer one a gap (the client then asks again from `lastSeq`); both leave the state as it was.
 */
export function applyEvent(
  state: TranscriptState,
  event: SessionEvent,
): { state: TranscriptState; outcome: FoldOutcome } {
  if (event.seq <= state.lastSeq) return { state, outcome: 'duplicate' };
  if (event.seq !== state.lastSeq + 1) return { state, outcome: 'gap' };
  const { state: next } = applyBatch(state, [event]);
  return { state: next, outcome: 'applied' };
}

/** Folds a run of events; convenience for tests and for replays. */
export function foldEvents(state: TranscriptState, events: readonly SessionEvent[]): TranscriptState {
  return applyBatch(state, events).state;
}

/**
 * A batch of events folded at once (a replay page, or what arrived in one animation frame): the
 * items are copied once per batch, not once per event, so the cost per event stays flat however
 * long the transcript, and the screen renders once per batch. Stops at a gap, which it reports.
 */
export function applyBatch(
  state: TranscriptState,
  events: readonly SessionEvent[],
): { state: TranscriptState; applied: number; gap: boolean } {
  let draft: Draft | undefined;
  let summary = state.summary;
  let lastSeq = state.lastSeq;
  let applied = 0;
  let gap = false;
  for (const event of events) {
    if (event.seq <= lastSeq) continue;
    if (event.seq !== lastSeq + 1) {
      gap = true;
      break;
    }
    lastSeq = event.seq;
    applied++;
    if (event.type === 'session.updated') summary = event.session;
    else step((draft ??= new Draft(state.items)), event);
  }
  if (applied === 0) return { state, applied, gap };
  const next: TranscriptState = {
    ...state,
    lastSeq,
    applied: state.applied + applied,
    summary,
    items: draft ? draft.items : state.items,
  };
  return { state: bound(next), applied, gap };
}

/** A batch's own copy of the items, with an index by id built on first use. */
class Draft {
  readonly items: TranscriptItem[];
  private index: Map<string, number> | undefined;

  constructor(items: readonly TranscriptItem[]) {
    this.items = [...items];
  }

  /** Replaces the item with this id in place (keeping its position), or appends a new one. */
  upsert(id: string, make: (old: TranscriptItem | undefined) => TranscriptItem): void {
    const index = (this.index ??= new Map(this.items.map((item, i) => [item.id, i])));
    const at = index.get(id);
    if (at !== undefined) this.items[at] = make(this.items[at]);
    else this.push(make(undefined));
  }

  push(item: TranscriptItem): void {
    this.index?.set(item.id, this.items.length);
    this.items.push(item);
  }

  /** A run that ended leaves no message streaming (an interrupt may cut one short). */
  endStreaming(): void {
    endStreaming(this.items);
  }
}

function step(draft: Draft, event: SessionEvent): void {
  switch (event.type) {
    case 'message.delta':
      draft.upsert(event.messageId, (old) =>
        old?.kind === 'message'
          ? { ...old, text: old.text + event.text }
          : {
              kind: 'message',
              seq: event.seq,
              id: event.messageId,
              role: 'assistant',
              text: event.text,
              streaming: true,
            },
      );
      break;
    case 'message':
      draft.upsert(event.messageId, (old) => ({
        kind: 'message',
        seq: old?.seq ?? event.seq,
        id: event.messageId,
        role: event.role,
        text: event.text,
        streaming: false,
        ...(event.attachments?.length ? { attachments: event.attachments } : {}),
      }));
      break;
    case 'tool.started':
      draft.upsert(toolKey(event.toolCallId), (old) => ({
        kind: 'tool',
        seq: old?.seq ?? event.seq,
        id: toolKey(event.toolCallId),
        tool: event.tool,
        title: event.title,
        input: formatInput(event.input),
        status: 'running',
        output: '',
        truncated: false,
        exitCode: null,
        toolKind: event.kind ?? '',
        diff: event.diff ?? '',
        diffTruncated: event.diffTruncated ?? false,
      }));
      break;
    case 'tool.updated':
      draft.upsert(toolKey(event.toolCallId), (old) => {
        const base: ToolItem =
          old?.kind === 'tool'
            ? old
            : { ...blankTool(event.toolCallId, event.tool, event.seq), title: event.title ?? event.tool };
        return {
          ...base,
          ...(event.title !== undefined ? { title: event.title } : {}),
          ...(event.input !== undefined ? { input: formatInput(event.input) } : {}),
          ...(event.output !== undefined ? { output: event.output } : {}),
          ...(event.kind !== undefined ? { toolKind: event.kind } : {}),
          ...(event.diff !== undefined ? { diff: event.diff, diffTruncated: event.diffTruncated ?? false } : {}),
        };
      });
      break;
    case 'tool.finished':
      draft.upsert(toolKey(event.toolCallId), (old) => {
        const base = old?.kind === 'tool' ? old : blankTool(event.toolCallId, event.tool, event.seq);
        return {
          ...base,
          tool: event.tool,
          status: event.ok ? 'ok' : 'failed',
          output: event.output,
          truncated: event.truncated,
          exitCode: event.exitCode ?? null,
          ...(event.kind !== undefined ? { toolKind: event.kind } : {}),
          ...(event.diff !== undefined ? { diff: event.diff, diffTruncated: event.diffTruncated ?? false } : {}),
        };
      });
      break;
    case 'plan':
      draft.upsert(`plan:${event.planId}`, (old) => ({
        kind: 'plan',
        seq: old?.seq ?? event.seq,
        id: `plan:${event.planId}`,
        entries: event.entries,
      }));
      break;
    case 'approval.requested':
    case 'approval.resolved':
      draft.upsert(approvalKey(event.approval.id), (old) => ({
        kind: 'approval',
        seq: old?.seq ?? event.seq,
        id: approvalKey(event.approval.id),
        approval: event.approval,
      }));
      break;
    case 'run.finished':
      draft.endStreaming();
      draft.push({
        kind: 'run',
        seq: event.seq,
        id: `run:${event.runId}`,
        status: event.status,
        error: event.error ?? '',
      });
      break;
    case 'notice':
      draft.push({ kind: 'notice', seq: event.seq, id: `notice:${event.seq}`, level: event.level, text: event.text });
      break;
    case 'context.compacted':
      // Marked where it happened, like a notice: the model saw less of what is above it from here on.
      draft.push({
        kind: 'notice',
        seq: event.seq,
        id: `notice:${event.seq}`,
        level: 'info',
        text: compactionLine(event),
      });
      break;
    default:
      // Other kinds (file changes, kinds added later) have their own views, not transcript items.
      break;
  }
}

/**
 * What the cache keeps of a transcript: its newest CACHED_ITEMS items, the older ones replaced by
 * one gap (read again from the host when scrolled to).
 */
export function trimForCache(state: TranscriptState, keep = CACHED_ITEMS): TranscriptState {
  return cutFront(state, state.items.length - keep);
}

/** The approvals in a transcript still waiting for an answer. */
export function pendingApprovals(state: TranscriptState): Approval[] {
  const out: Approval[] = [];
  for (const item of state.items)
    if (item.kind === 'approval' && item.approval.status === 'pending') out.push(item.approval);
  return out;
}

/** A tool row for a call whose start was not seen (dropped from the front, or an update came first). */
function blankTool(toolCallId: string, tool: string, seq: number): ToolItem {
  return {
    kind: 'tool',
    seq,
    id: toolKey(toolCallId),
    tool,
    title: tool,
    input: '',
    status: 'running',
    output: '',
    truncated: false,
    exitCode: null,
    toolKind: '',
    diff: '',
    diffTruncated: false,
  };
}

function toolKey(toolCallId: string): string {
  return `tool:${toolCallId}`;
}

function approvalKey(approvalId: string): string {
  return `approval:${approvalId}`;
}

/** A run that ended leaves no message streaming (an interrupt may cut one short). Changes `items`. */
export function endStreaming(items: TranscriptItem[]): TranscriptItem[] {
  // Only the current run can stream: look back to the previous run's end, not the whole session.
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'run') break;
    if (item.kind === 'message' && item.streaming) items[i] = { ...item, streaming: false };
  }
  return items;
}

/** Keeps at most MAX_ITEMS items, the oldest becoming one leading gap. */
export function bound(state: TranscriptState): TranscriptState {
  return cutFront(state, state.items.length - MAX_ITEMS);
}

/** Drops the `over` oldest items, folding them (and any gap among them) into one leading gap. */
function cutFront(state: TranscriptState, over: number): TranscriptState {
  if (over <= 0) return state;
  const kept = state.items.slice(over);
  const first = kept[0];
  if (!first) return state;
  const to = first.kind === 'gap' ? first.to : first.seq - 1;
  const rest = first.kind === 'gap' ? kept.slice(1) : kept;
  if (to <= 0) return { ...state, items: rest };
  const gap: GapItem = { kind: 'gap', id: `gap:${to}`, seq: 1, after: 0, to };
  return { ...state, items: [gap, ...rest], dropped: state.dropped + over };
}

function formatInput(input: unknown): string {
  let text: string;
  try {
    text = typeof input === 'string' ? input : (JSON.stringify(input, null, 2) ?? '');
  } catch {
    text = String(input);
  }
  return text.length > MAX_TOOL_INPUT_CHARS ? `${text.slice(0, MAX_TOOL_INPUT_CHARS)}\n…` : text;
}
