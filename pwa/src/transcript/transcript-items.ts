import type { Approval, Attachment, PlanEntry, SessionSummary } from '@tether/shared-protocol';

/** The items a transcript shows, one per message, tool call, approval, notice, run, plan or gap. */

export interface MessageItem {
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
  kind: 'message';
  id: string;
  role: 'user' | 'assistant';
  text: string;
  /** True while only deltas have arrived: the whole message has not come yet. */
  streaming: boolean;
  /** Photos and files sent with a person's message, by reference. */
  attachments?: Attachment[];
}

export interface ToolItem {
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
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
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
  kind: 'plan';
  id: string;
  entries: PlanEntry[];
}

export interface ApprovalItem {
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
  kind: 'approval';
  id: string;
  approval: Approval;
}

export interface NoticeItem {
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
  kind: 'notice';
  id: string;
  level: 'info' | 'warning' | 'error';
  text: string;
}

export interface RunItem {
  /** The sequence number of the event that made the item (for paging and cache trimming). */
  seq: number;
  kind: 'run';
  id: string;
  status: 'done' | 'interrupted' | 'error';
  error: string;
}

/**
 * Events in (after, to] are not loaded on this device: skipped by a tail watch coming back after a
 * long time, or trimmed from the cache. They are read again from the host as history pages.
 */
export interface GapItem {
  kind: 'gap';
  id: string;
  seq: number;
  after: number;
  to: number;
}

export type TranscriptItem = MessageItem | ToolItem | ApprovalItem | NoticeItem | RunItem | GapItem | PlanItem;

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
