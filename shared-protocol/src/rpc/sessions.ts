import * as v from 'valibot';
import { MAX_MESSAGE_TEXT } from '../limits.js';
import { MAX_WATCH_TAIL } from './history.js';
import { SessionActivitySchema } from './activity.js';
import { AgentName } from './agents.js';
import { BlobId, MAX_ATTACHMENTS_PER_MESSAGE } from './blobs.js';
import { Count, Id, Name, Path, Seq, Timestamp } from './common.js';
import { NotifyLevelSchema } from './notify-level.js';

/** `sessions.*`: list, create, follow and steer agent sessions. */

/**
 * What a session's summary says of how it is steered: its mode, an agent's model, its budget.
 * Small on purpose (every summary carries them); the lists to choose from are `sessions.controls`.
 */

/** A mode's or a model's id as its back-end names it (an agent's own text: bounded, never parsed). */
export const ChoiceId = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

/** The mode a session is in, or the model an agent runs, by id and by the name shown for it. */
export const ChoiceRefSchema = v.object({ id: ChoiceId, name: v.pipe(v.string(), v.maxLength(100)) });
export type ChoiceRef = v.InferOutput<typeof ChoiceRefSchema>;

/** Tokens (in and out together) a budget may name at most: a trillion. */
export const MAX_BUDGET_TOKENS = 1e12;
/** US dollars a budget may name at most. */
export const MAX_BUDGET_USD = 1e6;

/**
 * What a session may spend over its whole life, in tokens (in and out together), in US dollars,
 * or both (it stops at whichever comes first). At least one.
 */
export const SessionBudgetSchema = v.pipe(
  v.object({
    tokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_BUDGET_TOKENS))),
    usd: v.optional(v.pipe(v.number(), v.minValue(0.01), v.maxValue(MAX_BUDGET_USD))),
  }),
  v.check((b) => b.tokens !== undefined || b.usd !== undefined, 'a budget names tokens, dollars or both'),
);
export type SessionBudget = v.InferOutput<typeof SessionBudgetSchema>;

export const SESSION_STATUSES = ['idle', 'running', 'waiting', 'error', 'interrupted'] as const;
export const SessionStatusSchema = v.picklist(SESSION_STATUSES);
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/**
 * What runs a session: `agent`, Tether's own agent loop; `acp`, an agent that speaks the Agent
 * Client Protocol; `terminal`, a command-line program in a terminal.
 */
export const SESSION_KINDS = ['agent', 'acp', 'terminal'] as const;
export const SessionKindSchema = v.picklist(SESSION_KINDS);
export type SessionKind = (typeof SESSION_KINDS)[number];

export function isSessionKind(value: string): value is SessionKind {
  return (SESSION_KINDS as readonly string[]).includes(value);
}

export const SessionSummarySchema = v.object({
  id: Id,
  title: Name,
  kind: SessionKindSchema,
  /** `local`, or the name of the machine the session runs on. */
  place: Name,
  cwd: Path,
  model: Name,
  /** The agent the session talks to (an ACP agent's name, a wrapped program's); absent for Tether's own loop. */
  agent: v.optional(Name),
  status: SessionStatusSchema,
  archived: v.boolean(),
  autoApprove: v.boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /** Sequence number of the session's newest event. */
  lastSeq: Seq,
  pendingApprovals: Count,
  /** Follow-up messages waiting for the current run's turn to end. */
  queued: Count,
  /** The last line of the transcript, for lists. */
  lastLine: v.pipe(v.string(), v.maxLength(400)),
  /** The current (or last) run at a glance; absent from hosts that do not keep it. */
  activity: v.optional(SessionActivitySchema),
  /** A `terminal` session's terminal (`terminals.attach`), while the host holds it open. */
  terminalId: v.optional(Id),
  /** When devices are notified of this session (`needs` when absent: a host before the choice). */
  notify: v.optional(NotifyLevelSchema),
  /** Its mode (plan, ask, …), where its back-end has modes. */
  mode: v.optional(ChoiceRefSchema),
  /** The model an ACP agent runs, where it says (Tether's own loop: `model`). */
  agentModel: v.optional(ChoiceRefSchema),
  /** What it may spend over its life; absent: no budget. */
  budget: v.optional(SessionBudgetSchema),
});

export type SessionSummary = v.InferOutput<typeof SessionSummarySchema>;

const MessageText = v.pipe(v.string(), v.minLength(1), v.maxLength(MAX_MESSAGE_TEXT));

export const ListSessionsParams = v.object({ includeArchived: v.optional(v.boolean()) });
export const ListSessionsResult = v.object({ sessions: v.array(SessionSummarySchema) });

export const CreateSessionParams = v.object({
  cwd: Path,
  text: MessageText,
  model: v.optional(Name),
  /** `local` (the default) or a machine name. */
  place: v.optional(Name),
  /** An ACP agent (from `host.info`'s `agents`) to run the session instead of Tether's own loop; not with `model`. */
  agent: v.optional(AgentName),
  ...steeringAtStart(),
  ...inWorktree(),
});
export const SessionResult = v.object({ session: SessionSummarySchema });

export const WatchSessionParams = v.object({
  id: Id,
  /** The last sequence number the device holds; events after it are replayed, then live ones follow. */
  after: Seq,
  /**
   * At most this many of the newest events are replayed: when more came after `after`, a
   * `watch.skipped` event names the ones left out (the device reads them later as history pages).
   */
  tail: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_WATCH_TAIL))),
});
export const WatchSessionResult = v.object({ session: SessionSummarySchema });

export const SessionIdParams = v.object({ id: Id });

/**
 * A device's own id for one message, made when it was typed: sent again with the same id after a
 * dropped connection, the host takes it once (and answers the resend with `duplicate: true`).
 */
export const ClientMessageId = v.pipe(v.string(), v.minLength(8), v.maxLength(64), v.regex(/^[A-Za-z0-9_-]+$/));

/**
 * A message: text, attachments uploaded for this session beforehand (`blobs.*`, named by their
 * hash), or both; never neither.
 */
export const SendParams = v.pipe(
  v.object({
    id: Id,
    text: v.pipe(v.string(), v.maxLength(MAX_MESSAGE_TEXT)),
    clientMessageId: v.optional(ClientMessageId),
    attachments: v.optional(v.pipe(v.array(BlobId), v.maxLength(MAX_ATTACHMENTS_PER_MESSAGE))),
  }),
  v.check((p) => p.text.length > 0 || (p.attachments?.length ?? 0) > 0, 'a message needs text or an attachment'),
);
export const SendResult = v.object({
  /** True when a run was busy and the message waits for its turn to end. */
  queued: v.boolean(),
  /** The host already had this `clientMessageId`: nothing was sent again. */
  duplicate: v.optional(v.boolean()),
  /** The message was `/clear`: the new session the conversation goes on in. */
  session: v.optional(Id),
});

/**
 * How a new session starts besides its model: in a mode (`plan`), with an ACP agent's own model
 * (one it offered before; else the agent's default, said in a notice), and with a budget.
 */
export function steeringAtStart() {
  return {
    mode: v.optional(ChoiceId),
    agentModel: v.optional(ChoiceId),
    budget: v.optional(SessionBudgetSchema),
  };
}

/**
 * A session in a worktree of its own: `git worktree add` on a new branch `tether/<short-id>` beside
 * the folder's repository (docs/git.md); refused when the folder is not in one.
 */
export function inWorktree() {
  return { worktree: v.optional(v.boolean()) };
}

export const ArchiveParams = v.object({
  id: Id,
  archived: v.optional(v.boolean()),
  /**
   * Also remove the session's worktree (one Tether made for it): refused, and nothing archived, while
   * it holds uncommitted work, unless `force` (that work is then lost). Its branch stays.
   */
  removeWorktree: v.optional(v.boolean()),
  force: v.optional(v.boolean()),
});
