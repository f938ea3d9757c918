import type { Approval, PlanEntry, SessionEvent, SessionSummary } from '@tether/shared-protocol';

/**
 * A session's transcript as the app shows it, folded from the session's event log. Folding is
 * incremental (`applyEvent`), so the state can be cached, shown at once on open, and carried on
 * from its `lastSeq` when the watch resumes.
 */

export interface MessageItem {
  kind: 'message';
  id: string;
  role: 'user' | 'assistant';
  text: string;
  /** True while only deltas have arrived: the whole message has not come yet. */
  streaming: boolean;
}

export interface ToolItem {
  kind: 'tool';
  id: string;
  tool: string;
  title: string;
  /** The call's input as pretty JSON, cut at MAX_TOOL_INPUT_CHARS. */
  input: string;
  status: 'running' | 'ok' | 'failed';
  output: string;
  truncated: boolean;
  exitCode: number | null;
  /** The agent's kind for it (`edit`, `execute`, …); '' for Tether's own tools. */
  toolKind: string;
  /** Its changes as a unified diff ('' when none), shown as text. */
  diff: string;
  diffTruncated: boolean;
}

/** An agent's plan, as a checklist; a newer plan event with the same id replaces it in place. */
export interface PlanItem {
  kind: 'plan';
  id: string;
  entries: PlanEntry[];
}

export interface ApprovalItem {
  kind: 'approval';
  id: string;
  approval: Approval;
}

export interface NoticeItem {
  kind: 'notice';
  id: string;
  level: 'info' | 'warning' | 'error';
  text: string;
}

export interface RunItem {
  kind: 'run';
  id: string;
  status: 'done' | 'interrupted' | 'error';
  error: string;
}

export type TranscriptItem = MessageItem | ToolItem | PlanItem | ApprovalItem | NoticeItem | RunItem;

export interface TranscriptState {
  /** The sequence number of the last event folded in; the watch resumes after it. */
  lastSeq: number;
  /** Events folded in since 0. Equal to `lastSeq` when nothing was missed or doubled. */
  applied: number;
  /** Items dropped from the front to keep the state bounded (MAX_ITEMS). */
  dropped: number;
  items: TranscriptItem[];
  /** The newest summary seen in the log. */
  summary: SessionSummary | null;
}

/** Items kept per transcript: beyond it the oldest go first (shown as "N earlier items"). */
export const MAX_ITEMS = 1000;
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
  const next: TranscriptState = { ...state, lastSeq: event.seq, applied: state.applied + 1 };
  switch (event.type) {
    case 'session.updated':
      next.summary = event.session;
      break;
    case 'message.delta':
      next.items = upsert(state.items, event.messageId, (old) =>
        old?.kind === 'message'
          ? { ...old, text: old.text + event.text }
          : { kind: 'message', id: event.messageId, role: 'assistant', text: event.text, streaming: true },
      );
      break;
    case 'message':
      next.items = upsert(state.items, event.messageId, () => ({
        kind: 'message',
        id: event.messageId,
        role: event.role,
        text: event.text,
        streaming: false,
      }));
      break;
    case 'tool.started':
      next.items = upsert(state.items, toolKey(event.toolCallId), () => ({
        kind: 'tool',
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
      next.items = upsert(state.items, toolKey(event.toolCallId), (old) => {
        const base: ToolItem =
          old?.kind === 'tool' ? old : { ...blankTool(event.toolCallId, event.tool), title: event.title ?? event.tool };
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
      next.items = upsert(state.items, toolKey(event.toolCallId), (old) => {
        const base = old?.kind === 'tool' ? old : blankTool(event.toolCallId, event.tool);
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
      next.items = upsert(state.items, `plan:${event.planId}`, () => ({
        kind: 'plan',
        id: `plan:${event.planId}`,
        entries: event.entries,
      }));
      break;
    case 'approval.requested':
    case 'approval.resolved':
      next.items = upsert(state.items, approvalKey(event.approval.id), () => ({
        kind: 'approval',
        id: approvalKey(event.approval.id),
        approval: event.approval,
      }));
      break;
    case 'run.finished':
      next.items = endStreaming([...state.items]);
      next.items.push({ kind: 'run', id: `run:${event.runId}`, status: event.status, error: event.error ?? '' });
      break;
    case 'notice':
      next.items = [
        ...state.items,
        { kind: 'notice', id: `notice:${event.seq}`, level: event.level, text: event.text },
      ];
      break;
  }
  return { state: bound(next), outcome: 'applied' };
}

/** Folds a run of events; convenience for tests and for replays. */
export function foldEvents(state: TranscriptState, events: readonly SessionEvent[]): TranscriptState {
  let current = state;
  for (const event of events) current = applyEvent(current, event).state;
  return current;
}

/** The approvals in a transcript still waiting for an answer. */
export function pendingApprovals(state: TranscriptState): Approval[] {
  const out: Approval[] = [];
  for (const item of state.items)
    if (item.kind === 'approval' && item.approval.status === 'pending') out.push(item.approval);
  return out;
}

/** A tool row for a call whose start was not seen (dropped from the front, or an update came first). */
function blankTool(toolCallId: string, tool: string): ToolItem {
  return {
    kind: 'tool',
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

/** Replaces the item with this id in place (keeping its position), or appends a new one. */
function upsert(
  items: readonly TranscriptItem[],
  id: string,
  make: (old: TranscriptItem | undefined) => TranscriptItem,
): TranscriptItem[] {
  // New items land at the end, so the one to replace is almost always near it.
  for (let i = items.length - 1; i >= 0; i--) {
    if (items[i]!.id === id) {
      const copy = [...items];
      copy[i] = make(items[i]);
      return copy;
    }
  }
  return [...items, make(undefined)];
}

/** A run that ended leaves no message streaming (an interrupt may cut one short). */
function endStreaming(items: TranscriptItem[]): TranscriptItem[] {
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.kind === 'message' && item.streaming) items[i] = { ...item, streaming: false };
  }
  return items;
}

function bound(state: TranscriptState): TranscriptState {
  const over = state.items.length - MAX_ITEMS;
  if (over <= 0) return state;
  return { ...state, items: state.items.slice(over), dropped: state.dropped + over };
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
