import * as v from 'valibot';
import { MAX_ACTION_TEXT } from '../limits.js';
import { Id, Name, Path, Timestamp } from './common.js';

/** `approvals.*`: what the agent wants to do, and the person's answer. */

/**
 * `allow-always` is offered only where the approval carries `always`: the agent's own option that
 * outlives the session, chosen only under that name, never from a lock screen.
 */
export const DECISIONS = ['allow-once', 'allow-session', 'allow-always', 'deny'] as const;
export const DecisionSchema = v.picklist(DECISIONS);
export type Decision = (typeof DECISIONS)[number];

export const AnsweredBySchema = v.object({
  kind: v.picklist(['device', 'local', 'auto']),
  /** Device id when a device answered. */
  id: v.optional(Id),
  label: Name,
});

/**
 * What is asked. `trust`: whether a folder's own agent configuration (hooks, MCP servers, plugins)
 * may load; `allow-once` trusts it for this session, `allow-always` (its `always`) from now on
 * until it changes, `deny` starts the agent without it.
 */
export const APPROVAL_KINDS = ['shell', 'write', 'edit', 'mcp', 'trust', 'plan'] as const;

export const ApprovalSchema = v.object({
  id: Id,
  sessionId: Id,
  toolCallId: Id,
  tool: Name,
  /** `plan`: the own loop in plan mode proposes its plan; allowing it accepts the plan. `trust`: a folder's own agent configuration. */
  kind: v.picklist(APPROVAL_KINDS),
  /** The complete action: the whole command, the whole diff. Never shortened. */
  action: v.pipe(v.string(), v.maxLength(MAX_ACTION_TEXT)),
  cwd: Path,
  place: Name,
  /**
   * The agent's own answer that persists beyond this session, in its words (Codex's exec-policy
   * amendment, an "Always allow"), when it offers one: the answer `allow-always`, "always, for
   * every session of this agent". Absent: there is no such answer.
   */
  always: v.optional(v.pipe(v.string(), v.maxLength(1000))),
  createdAt: Timestamp,
  status: v.picklist(['pending', 'allowed', 'denied', 'cancelled']),
  decision: v.optional(DecisionSchema),
  note: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  /** For `allow-session` of a shell command: the command prefix allowed from now on. */
  prefix: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  answeredBy: v.optional(AnsweredBySchema),
  answeredAt: v.optional(Timestamp),
});

export type Approval = v.InferOutput<typeof ApprovalSchema>;
export type AnsweredBy = v.InferOutput<typeof AnsweredBySchema>;

export const ListApprovalsParams = v.object({ sessionId: v.optional(Id) });
export const ListApprovalsResult = v.object({ approvals: v.array(ApprovalSchema) });

export const AnswerApprovalParams = v.object({
  id: Id,
  decision: DecisionSchema,
  note: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  prefix: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4000))),
});
export const AnswerApprovalResult = v.object({ approval: ApprovalSchema });

/**
 * `approvals.get`: one approval, pending or answered, with its session's title: what the app needs
 * to open straight on an approval's card (a tapped notification), before the session list or any
 * transcript. An answered one says by whom, so the card says so at once.
 */
export const GetApprovalParams = v.object({ id: Id });
export const GetApprovalResult = v.object({
  approval: ApprovalSchema,
  /** The session's title; absent when the session is gone. */
  sessionTitle: v.optional(v.pipe(v.string(), v.maxLength(1000))),
});
export type GetApprovalResultValue = v.InferOutput<typeof GetApprovalResult>;
