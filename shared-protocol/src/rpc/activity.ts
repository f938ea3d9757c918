import * as v from 'valibot';
import { Count, Timestamp } from './common.js';

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
  /** US dollars, only where the provider reports a cost. */
  costUsd: v.optional(v.pipe(v.number(), v.minValue(0))),
  /** What the run does now, in one line ("shell: npm test"); empty between runs. Hostile text. */
  now: v.pipe(v.string(), v.maxLength(200)),
  /** The last run stopped at its model-call limit: the session waits for someone to say go on. */
  paused: v.boolean(),
});

export type SessionActivity = v.InferOutput<typeof SessionActivitySchema>;
