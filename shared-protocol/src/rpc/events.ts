import * as v from 'valibot';
import {
  MAX_DIFF_EVENT,
  MAX_PLAN_ENTRIES,
  MAX_PLAN_ENTRY_TEXT,
  MAX_TOOL_DIFF_EVENT,
  MAX_TOOL_LOCATIONS,
  MAX_TOOL_OUTPUT_EVENT,
} from '../limits.js';
import { ApprovalSchema } from './approvals.js';
import { AttachmentListSchema } from './blobs.js';
import { Count, Id, Name, Path, Seq, Timestamp } from './common.js';
import { KeepAwakeSchema } from './keep-awake.js';
import { MachineInfoSchema } from './machines.js';
import { SessionSummarySchema } from './sessions.js';

/**
 * Events the host pushes. Session events come from the session's append-only log and carry its
 * sequence number: a device resumes by watching with the last one it holds. Host events
 * (machines, terminals) are not part of any session's log.
 */

const sessionBase = { sessionId: Id, seq: Seq, at: Timestamp };

const Text = v.pipe(v.string(), v.maxLength(1024 * 1024));

/** Tool results one compaction may cut (the oldest first; a later compaction takes the rest). */
export const MAX_COMPACTION_CUTS = 2000;
/** Characters of a compaction's summary of the oldest turns. */
export const MAX_COMPACTION_SUMMARY = 32 * 1024;

/** A file a tool reads or changes, and the line when known. */
export const ToolLocationSchema = v.object({ path: Path, line: v.optional(Count) });
export type ToolLocation = v.InferOutput<typeof ToolLocationSchema>;

/**
 * What an ACP agent says about a tool call beyond Tether's own fields, all optional: its kind
 * (`read`, `edit`, `execute`, … as the agent names it), the files it touches, and its changes as a
 * unified diff (cut at MAX_TOOL_DIFF_EVENT, with `diffTruncated`).
 */
const toolDetails = {
  kind: v.optional(v.pipe(v.string(), v.maxLength(64))),
  locations: v.optional(v.pipe(v.array(ToolLocationSchema), v.maxLength(MAX_TOOL_LOCATIONS))),
  diff: v.optional(v.pipe(v.string(), v.maxLength(MAX_TOOL_DIFF_EVENT))),
  diffTruncated: v.optional(v.boolean()),
};

export const PLAN_ENTRY_STATUSES = ['pending', 'in_progress', 'completed'] as const;

export const PlanEntrySchema = v.object({
  content: v.pipe(v.string(), v.maxLength(MAX_PLAN_ENTRY_TEXT)),
  status: v.picklist(PLAN_ENTRY_STATUSES),
  priority: v.optional(v.picklist(['high', 'medium', 'low'])),
});
export type PlanEntry = v.InferOutput<typeof PlanEntrySchema>;

export const SESSION_EVENT_SCHEMAS = {
  'session.updated': v.object({ ...sessionBase, type: v.literal('session.updated'), session: SessionSummarySchema }),
  'message.delta': v.object({ ...sessionBase, type: v.literal('message.delta'), messageId: Id, text: Text }),
  message: v.object({
    ...sessionBase,
    type: v.literal('message'),
    messageId: Id,
    role: v.picklist(['user', 'assistant']),
    text: Text,
    /** Photos and files sent with a user message, by reference (`blobs.read` fetches the bytes). */
    attachments: v.optional(AttachmentListSchema),
  }),
  'tool.started': v.object({
    ...sessionBase,
    type: v.literal('tool.started'),
    toolCallId: Id,
    tool: Name,
    /** One line for a collapsed row: the command, the file, the pattern. */
    title: v.pipe(v.string(), v.maxLength(1000)),
    input: v.unknown(),
    ...toolDetails,
  }),
  /** A running tool call changed (an ACP agent's update): only what changed is present. */
  'tool.updated': v.object({
    ...sessionBase,
    type: v.literal('tool.updated'),
    toolCallId: Id,
    tool: Name,
    title: v.optional(v.pipe(v.string(), v.maxLength(1000))),
    input: v.optional(v.unknown()),
    /** Output so far, replacing what an earlier update said. */
    output: v.optional(v.pipe(v.string(), v.maxLength(MAX_TOOL_OUTPUT_EVENT))),
    ...toolDetails,
  }),
  'tool.finished': v.object({
    ...sessionBase,
    type: v.literal('tool.finished'),
    toolCallId: Id,
    tool: Name,
    ok: v.boolean(),
    output: v.pipe(v.string(), v.maxLength(MAX_TOOL_OUTPUT_EVENT)),
    truncated: v.boolean(),
    exitCode: v.optional(v.nullable(v.number())),
    ...toolDetails,
  }),
  'approval.requested': v.object({ ...sessionBase, type: v.literal('approval.requested'), approval: ApprovalSchema }),
  'approval.resolved': v.object({ ...sessionBase, type: v.literal('approval.resolved'), approval: ApprovalSchema }),
  'run.finished': v.object({
    ...sessionBase,
    type: v.literal('run.finished'),
    runId: Id,
    status: v.picklist(['done', 'interrupted', 'error']),
    error: v.optional(v.pipe(v.string(), v.maxLength(4000))),
    usage: v.object({ inputTokens: Count, outputTokens: Count }),
    /**
     * False when the back-end did not report what the run used (an ACP agent): `usage` then holds
     * zeros only for readers that predate this field, and is shown as unknown. Absent: reported.
     */
    usageReported: v.optional(v.boolean()),
  }),
  /**
   * The agent's plan for the run, as a checklist. A later plan event with the same `planId`
   * replaces the whole list (an ACP agent sends its plan whole each time).
   */
  plan: v.object({
    ...sessionBase,
    type: v.literal('plan'),
    planId: Id,
    entries: v.pipe(v.array(PlanEntrySchema), v.maxLength(MAX_PLAN_ENTRIES)),
  }),
  notice: v.object({
    ...sessionBase,
    type: v.literal('notice'),
    level: v.picklist(['info', 'warning', 'error']),
    text: v.pipe(v.string(), v.maxLength(4000)),
  }),
  /**
   * The session stopped and waits for the person: a wrapped program asks a question (`question`,
   * with the question's line from its screen), a run reached its model-call limit (`limit`), or
   * the session's budget (`budget`: raising it goes on). Sent once per stop; the session's status
   * says whether it still waits.
   */
  'session.waiting': v.object({
    ...sessionBase,
    type: v.literal('session.waiting'),
    reason: v.picklist(['question', 'limit', 'budget']),
    text: v.pipe(v.string(), v.maxLength(1000)),
  }),
  /**
   * Tether's own loop compacted the model's history to stay inside its context window (`reason`
   * `limit`: before a request would pass it; `overflow`: the provider refused one as too long;
   * `asked`: the person asked with `/compact`).
   * It says exactly what changed, so the history rebuilt from the log is the one the model saw:
   * the results of `cutOutputs` are cut to their first `headChars` and last `tailChars`
   * characters, then the first `summarized` messages of the history are replaced by one user
   * message holding `summary`, written by the same model.
   */
  'context.compacted': v.object({
    ...sessionBase,
    type: v.literal('context.compacted'),
    reason: v.picklist(['limit', 'overflow', 'asked']),
    cutOutputs: v.pipe(v.array(Id), v.maxLength(MAX_COMPACTION_CUTS)),
    headChars: Count,
    tailChars: Count,
    summarized: Count,
    summary: v.optional(v.pipe(v.string(), v.maxLength(MAX_COMPACTION_SUMMARY))),
    /** Tokens of the request before and after, as counted (provider usage and an estimate). */
    tokensBefore: Count,
    tokensAfter: Count,
    window: Count,
  }),
  /** A file the session wrote or edited, with the diff of what changed (for the Changes view). */
  'file.changed': v.object({
    ...sessionBase,
    type: v.literal('file.changed'),
    toolCallId: Id,
    path: v.pipe(v.string(), v.maxLength(4096)),
    /** `created`, or `modified`. */
    change: v.picklist(['created', 'modified']),
    /** A unified diff, cut at MAX_DIFF_EVENT (then `truncated`). */
    diff: v.pipe(v.string(), v.maxLength(MAX_DIFF_EVENT)),
    truncated: v.boolean(),
  }),
} as const;

export const HOST_EVENT_SCHEMAS = {
  'machine.status': v.object({ type: v.literal('machine.status'), machine: MachineInfoSchema }),
  'terminal.output': v.object({
    type: v.literal('terminal.output'),
    terminalId: Id,
    /** Byte offset of `data` in the terminal's output, for resume. */
    offset: Count,
    /** Output bytes: base64url in a JSON event, the bytes themselves in a binary message
     * (terminal-output-frame.ts, for a device that attached with `binary: true`). */
    data: v.union([
      v.pipe(v.string(), v.maxLength(256 * 1024)),
      v.pipe(
        v.custom<Uint8Array>((data) => data instanceof Uint8Array, 'bytes'),
        v.check((data) => data.length <= 256 * 1024, 'at most 256 KiB of output'),
      ),
    ]),
  }),
  'terminal.exit': v.object({
    type: v.literal('terminal.exit'),
    terminalId: Id,
    code: v.nullable(v.number()),
    /** The end of the output: the exit follows every byte before it. */
    offset: v.optional(Count),
    signal: v.optional(v.nullable(Name)),
  }),
  /**
   * The terminal's current screen, sent on attach in place of output the host no longer holds, and
   * at a frame rate to a device a window behind in a flood: the device resets its terminal, writes
   * `data`, acknowledges `offset`, and takes output from `offset` on.
   */
  'terminal.screen': v.object({
    type: v.literal('terminal.screen'),
    terminalId: Id,
    offset: Count,
    /** Bytes between the device's `after` and `offset` it will never get. */
    dropped: Count,
    cols: Count,
    rows: Count,
    data: v.pipe(v.string(), v.maxLength(700 * 1024)),
  }),
  /** The device no longer gets this terminal's output (it stopped acknowledging); attach again. */
  'terminal.detached': v.object({
    type: v.literal('terminal.detached'),
    terminalId: Id,
    reason: v.pipe(v.string(), v.maxLength(1000)),
  }),
  /** On a watch with `tail`: the events in (after, to] are not replayed; the device pages them in. */
  'watch.skipped': v.object({ type: v.literal('watch.skipped'), sessionId: Id, after: Seq, to: Seq }),
  /** The host's sleep inhibitor changed state (keep-awake.ts): every watching device hears it. */
  'awake.status': v.object({ type: v.literal('awake.status'), keepAwake: KeepAwakeSchema }),
} as const;

export type SessionEventType = keyof typeof SESSION_EVENT_SCHEMAS;
export type HostEventType = keyof typeof HOST_EVENT_SCHEMAS;
export type SessionEvent = v.InferOutput<(typeof SESSION_EVENT_SCHEMAS)[SessionEventType]>;
export type HostEvent = v.InferOutput<(typeof HOST_EVENT_SCHEMAS)[HostEventType]>;
export type TetherEvent = SessionEvent | HostEvent;
export type SessionEventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;

/** A session event before the log gives it a sequence number and time. */
export type SessionEventBody = SessionEvent extends infer E
  ? E extends SessionEvent
    ? Omit<E, 'sessionId' | 'seq' | 'at'>
    : never
  : never;

export function isSessionEventType(type: string): type is SessionEventType {
  return Object.prototype.hasOwnProperty.call(SESSION_EVENT_SCHEMAS, type);
}

export function isHostEventType(type: string): type is HostEventType {
  return Object.prototype.hasOwnProperty.call(HOST_EVENT_SCHEMAS, type);
}

export type DecodedEvent =
  { kind: 'event'; event: TetherEvent } | { kind: 'unknown'; type: string } | { kind: 'invalid'; type: string };

/** Decodes one event. An unknown type is reported as such (to be counted and skipped), never fatal. */
export function decodeEvent(input: unknown): DecodedEvent {
  const type = typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
  if (typeof type !== 'string') return { kind: 'invalid', type: String(type) };
  const schema: v.GenericSchema | undefined = isSessionEventType(type)
    ? SESSION_EVENT_SCHEMAS[type]
    : isHostEventType(type)
      ? HOST_EVENT_SCHEMAS[type]
      : undefined;
  if (!schema) return { kind: 'unknown', type };
  const parsed = v.safeParse(schema, input);
  return parsed.success ? { kind: 'event', event: parsed.output as TetherEvent } : { kind: 'invalid', type };
}

export function isSessionEvent(event: TetherEvent): event is SessionEvent {
  return 'seq' in event;
}
