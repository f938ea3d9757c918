import * as v from 'valibot';
import { AgentName } from './agents.js';
import { ChoiceId, SessionBudgetSchema } from './sessions.js';
import { Id } from './common.js';

/**
 * Steering a session: the slash commands it takes, the modes and models it offers
 * (`sessions.controls`), and switching them or setting its budget (`sessions.setMode`,
 * `sessions.setModel`, `sessions.setBudget`). An ACP agent's lists are its own text, bounded here
 * and escaped by every surface; the own loop's are Tether's.
 */

export const MAX_SESSION_COMMANDS = 200;
export const MAX_SESSION_MODES = 32;
export const MAX_SESSION_MODELS = 100;

/**
 * A command's name as typed after `/`: words of letters, digits, `_`, `.`, `:` and `-`, one space
 * between words (Gemini CLI's `memory show`), at most 64 characters.
 */
export const COMMAND_NAME = /^[A-Za-z0-9][\w.:-]*(?: [\w.:-]+)*$/;
export const CommandName = v.pipe(v.string(), v.maxLength(64), v.regex(COMMAND_NAME));

const Text = (max: number) => v.pipe(v.string(), v.maxLength(max));

export const SessionCommandSchema = v.object({
  name: CommandName,
  description: Text(500),
  /** What it takes after its name ("<branch name>"), when it takes something. */
  hint: v.optional(Text(200)),
  /** `agent`: the ACP agent's own; `tether`: the own loop's; `skill`: a skill the session may use. */
  source: v.picklist(['agent', 'tether', 'skill']),
});
export type SessionCommand = v.InferOutput<typeof SessionCommandSchema>;

/** A mode or a model to choose from. */
export const ChoiceSchema = v.object({ id: ChoiceId, name: Text(100), description: v.optional(Text(500)) });
export type Choice = v.InferOutput<typeof ChoiceSchema>;

/**
 * What a model costs, in US dollars per million tokens, as of a date (YYYY-MM-DD), and from where:
 * Tether's own dated table, or the host's `prices.json`.
 */
export const PriceSchema = v.object({
  inputPerMTok: v.pipe(v.number(), v.minValue(0)),
  outputPerMTok: v.pipe(v.number(), v.minValue(0)),
  asOf: v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/)),
  source: v.picklist(['table', 'config']),
});
export type Price = v.InferOutput<typeof PriceSchema>;

export const SessionControlsResult = v.object({
  commands: v.pipe(v.array(SessionCommandSchema), v.maxLength(MAX_SESSION_COMMANDS)),
  modes: v.pipe(v.array(ChoiceSchema), v.maxLength(MAX_SESSION_MODES)),
  /** The current mode's id, where the session has modes. */
  mode: v.optional(ChoiceId),
  models: v.pipe(v.array(ChoiceSchema), v.maxLength(MAX_SESSION_MODELS)),
  /** The current model's id (the own loop's spec, or the agent's own id). */
  model: v.optional(ChoiceId),
  /** The current model's price, where one is known; absent: its cost is not shown. */
  price: v.optional(PriceSchema),
  /**
   * Why a list may be short: an agent that has not started yet offers what it said last time, or
   * nothing ("Claude Code says which commands it has once it has started").
   */
  note: v.optional(Text(500)),
});
export type SessionControls = v.InferOutput<typeof SessionControlsResult>;

export const SetModeParams = v.object({ id: Id, mode: ChoiceId });
export const SetModelParams = v.object({ id: Id, model: ChoiceId });
/** A budget for the session; null removes it. */
export const SetBudgetParams = v.object({ id: Id, budget: v.nullable(SessionBudgetSchema) });

/** `agents.controls`: what an ACP agent offered the last time it ran here, for New session. */
export const AgentControlsParams = v.object({ agent: AgentName });
