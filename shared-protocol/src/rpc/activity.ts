import * as v from 'valibot';
import { Count, Path, Timestamp } from './common.js';

/**
 * A run at a glance: what a session's summary says about its current (or last) run and its
 * totals, so a list and a session's header can show them without reading the transcript. Every
 * field is cheap for the host to keep (counters updated as events are appended).
 */

/** Model calls one run may make before it stops and waits for a "go on", unless configured. */
export const DEFAULT_MAX_MODEL_CALLS = 100;
/** The largest model-call limit a host or session may set: a run is still bounded, however long. */
export const MAX_MODEL_CALLS_LIMIT = 100_000;

export const ModelCallLimit = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_MODEL_CALLS_LIMIT));

/** Instruction files one run's system prompt may name: the repository's folders, then the host's own. */
export const MAX_INSTRUCTION_FILES = 64;

/**
 * An instructions file a run looked at (`AGENTS.md`, else `CLAUDE.md`, from the session folder up
 * to the repository root, then the host's own): `read` whole, `cut` to the prompt's cap, or
 * `left-out` (too large, unreadable, outside the repository, no room left). Paths are hostile text.
 */
export const InstructionFileSchema = v.object({
  path: Path,
  status: v.picklist(['read', 'cut', 'left-out']),
  /** The file's size in bytes, as read (0 when it could not be read). */
  bytes: Count,
});
export type InstructionFile = v.InferOutput<typeof InstructionFileSchema>;

/** How full the model's context was at the last model call (Tether's own loop only). */
export const ContextFillSchema = v.object({
  /** Tokens the last request took in (the provider's count where it gave one, else an estimate). */
  tokens: Count,
  /** The model's context window in tokens. */
  window: Count,
  /** Times the history was compacted over the whole session. */
  compactions: Count,
});
export type ContextFill = v.InferOutput<typeof ContextFillSchema>;

export const SessionActivitySchema = v.object({
  /** When the current (or last) run started, and when it ended (null while it runs). ms. */
  runStartedAt: v.nullable(Timestamp),
  runEndedAt: v.nullable(Timestamp),
  /** Model calls the current (or last) run made, and the limit it runs under. */
  modelCalls: Count,
  maxModelCalls: ModelCallLimit,
  /** True when the session's own limit is set (else the host's default applies). */
  ownLimit: v.boolean(),
  /** Totals over the whole session. */
  toolCalls: Count,
  inputTokens: Count,
  outputTokens: Count,
  /**
   * Runs whose usage the back-end did not report (an ACP agent's): their tokens are not in the
   * totals, which are then unknown rather than 0. Absent from hosts that do not count them.
   */
  unreportedRuns: v.optional(Count),
  /**
   * US dollars, for the model calls whose price is known (Tether's dated table or the host's
   * `prices.json`); absent when none is. Calls without a price are counted in `unpricedCalls`.
   */
  costUsd: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** Model calls over the session whose price is not known: their tokens are counted, their cost is not. */
  unpricedCalls: v.optional(Count),
  /** Tokens the current (or last) run used, in and out, as it goes. */
  runInputTokens: v.optional(Count),
  runOutputTokens: v.optional(Count),
  /** The last run stopped before a model call that could have passed the session's budget: it waits for more. */
  budgetReached: v.optional(v.boolean()),
  /** What the run does now, in one line ("shell: npm test"); empty between runs. Hostile text. */
  now: v.pipe(v.string(), v.maxLength(200)),
  /** The last run stopped at its model-call limit: the session waits for someone to say go on. */
  paused: v.boolean(),
  /** The instruction files the last run of Tether's own loop took in, in prompt order. */
  instructions: v.optional(v.pipe(v.array(InstructionFileSchema), v.maxLength(MAX_INSTRUCTION_FILES))),
  /** How full the model's context is (Tether's own loop only). */
  context: v.optional(ContextFillSchema),
});

export type SessionActivity = v.InferOutput<typeof SessionActivitySchema>;
