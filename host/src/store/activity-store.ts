import type { InstructionFile, SessionActivity } from '@tether/shared-protocol';
import { DEFAULT_MAX_MODEL_CALLS, InstructionFileSchema, MAX_INSTRUCTION_FILES } from '@tether/shared-protocol';
import * as v from 'valibot';
import type { Db } from './database.js';

/** Characters of the "now" line kept: one line in a list. */
export const NOW_CHARS = 200;

interface Row {
  run_started_at: number | null;
  run_ended_at: number | null;
  model_calls: number;
  max_model_calls: number | null;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  unreported_runs: number;
  now: string;
  paused: number;
  instructions: string | null;
  context_tokens: number | null;
  context_window: number | null;
  compactions: number;
  run_input_tokens: number;
  run_output_tokens: number;
  unpriced_calls: number;
  budget_reached: number;
}

const StoredInstructions = v.pipe(v.array(InstructionFileSchema), v.maxLength(MAX_INSTRUCTION_FILES));

/** The stored list, decoded (a row that does not decode reads as none rather than failing a summary). */
function instructionsOf(json: string | null): InstructionFile[] | undefined {
  if (json === null) return undefined;
  try {
    const decoded = v.safeParse(StoredInstructions, JSON.parse(json));
    return decoded.success ? decoded.output : undefined;
  } catch {
    return undefined;
  }
}

/** A change to a session's activity: counters add, the rest replaces. */
export interface ActivityChange {
  runStartedAt?: number;
  runEndedAt?: number | null;
  /** Replaces the run's model-call count (a new run starts again from 0). */
  modelCalls?: number;
  addToolCalls?: number;
  /** Adds to the session's and the run's tokens; `costUsd` where the call's price is known, else `unpriced`. */
  addTokens?: { input: number; output: number; costUsd?: number; unpriced?: boolean };
  /** A new run: its tokens start again from 0. */
  newRun?: true;
  /** The run stopped before a call that could have passed the budget (cleared when a run starts). */
  budgetReached?: boolean;
  /** Runs that ended without saying what they used. */
  addUnreportedRuns?: number;
  now?: string;
  paused?: boolean;
  /** Replaces the instruction files the last run took in. */
  instructions?: InstructionFile[];
  /** Replaces how full the context was at the last model call, in tokens. */
  context?: { tokens: number; window: number };
  addCompactions?: number;
}

/**
 * A run at a glance, per session (`session_activity`): counters kept up to date as the run goes,
 * so a summary never has to scan the event log. Also holds each session's own model-call limit.
 */
export class ActivityStore {
  private readonly select;
  private readonly ensure;

  constructor(
    private readonly db: Db,
    /** The host's model-call limit per run, for sessions without their own. */
    private defaultMaxModelCalls = DEFAULT_MAX_MODEL_CALLS,
  ) {
    this.select = db.prepare('SELECT * FROM session_activity WHERE session_id = ?');
    this.ensure = db.prepare('INSERT OR IGNORE INTO session_activity (session_id) VALUES (?)');
  }

  get hostLimit(): number {
    return this.defaultMaxModelCalls;
  }

  setHostLimit(limit: number): void {
    this.defaultMaxModelCalls = limit;
  }

  /** The limit a session's next run works under: its own, else the host's. */
  limitFor(sessionId: string): number {
    const row = this.select.get(sessionId) as Row | undefined;
    return row?.max_model_calls ?? this.defaultMaxModelCalls;
  }

  /** Sets (or with null clears) a session's own limit. */
  setLimit(sessionId: string, limit: number | null): void {
    this.ensure.run(sessionId);
    this.db.prepare('UPDATE session_activity SET max_model_calls = ? WHERE session_id = ?').run(limit, sessionId);
  }

  get(sessionId: string): SessionActivity {
    const row = this.select.get(sessionId) as Row | undefined;
    const instructions = instructionsOf(row?.instructions ?? null);
    return {
      runStartedAt: row?.run_started_at ?? null,
      runEndedAt: row?.run_ended_at ?? null,
      modelCalls: row?.model_calls ?? 0,
      maxModelCalls: row?.max_model_calls ?? this.defaultMaxModelCalls,
      ownLimit: (row?.max_model_calls ?? null) !== null,
      toolCalls: row?.tool_calls ?? 0,
      inputTokens: row?.input_tokens ?? 0,
      outputTokens: row?.output_tokens ?? 0,
      ...(row && row.unreported_runs > 0 ? { unreportedRuns: row.unreported_runs } : {}),
      ...(row && row.cost_usd !== null ? { costUsd: row.cost_usd } : {}),
      ...(row && row.unpriced_calls > 0 ? { unpricedCalls: row.unpriced_calls } : {}),
      ...(row ? { runInputTokens: row.run_input_tokens, runOutputTokens: row.run_output_tokens } : {}),
      ...(row && row.budget_reached !== 0 ? { budgetReached: true } : {}),
      now: row?.now ?? '',
      paused: (row?.paused ?? 0) !== 0,
      ...(instructions !== undefined ? { instructions } : {}),
      ...(row && row.context_tokens !== null && row.context_window !== null
        ? { context: { tokens: row.context_tokens, window: row.context_window, compactions: row.compactions } }
        : {}),
    };
  }

  change(sessionId: string, change: ActivityChange): void {
    const sets: string[] = [];
    const values: Record<string, unknown> = { id: sessionId };
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = @${column}`);
      values[column] = value;
    };
    if (change.runStartedAt !== undefined) set('run_started_at', change.runStartedAt);
    if (change.runEndedAt !== undefined) set('run_ended_at', change.runEndedAt);
    if (change.modelCalls !== undefined) set('model_calls', change.modelCalls);
    if (change.now !== undefined) set('now', change.now.slice(0, NOW_CHARS));
    if (change.paused !== undefined) set('paused', change.paused ? 1 : 0);
    if (change.budgetReached !== undefined) set('budget_reached', change.budgetReached ? 1 : 0);
    if (change.newRun) {
      set('run_input_tokens', 0);
      set('run_output_tokens', 0);
    }
    if (change.instructions !== undefined)
      set('instructions', JSON.stringify(change.instructions.slice(0, MAX_INSTRUCTION_FILES)));
    if (change.context !== undefined) {
      set('context_tokens', change.context.tokens);
      set('context_window', change.context.window);
    }
    if (change.addCompactions !== undefined) {
      sets.push('compactions = compactions + @addCompactions');
      values['addCompactions'] = change.addCompactions;
    }
    if (change.addToolCalls !== undefined) {
      sets.push('tool_calls = tool_calls + @addToolCalls');
      values['addToolCalls'] = change.addToolCalls;
    }
    if (change.addUnreportedRuns !== undefined) {
      sets.push('unreported_runs = unreported_runs + @addUnreported');
      values['addUnreported'] = change.addUnreportedRuns;
    }
    if (change.addTokens !== undefined) {
      sets.push(
        'input_tokens = input_tokens + @addIn',
        'output_tokens = output_tokens + @addOut',
        'run_input_tokens = run_input_tokens + @addIn',
        'run_output_tokens = run_output_tokens + @addOut',
      );
      if (change.addTokens.unpriced) sets.push('unpriced_calls = unpriced_calls + 1');
      values['addIn'] = change.addTokens.input;
      values['addOut'] = change.addTokens.output;
      if (change.addTokens.costUsd !== undefined) {
        sets.push('cost_usd = COALESCE(cost_usd, 0) + @addCost');
        values['addCost'] = change.addTokens.costUsd;
      }
    }
    if (sets.length === 0) return;
    this.ensure.run(sessionId);
    this.db.prepare(`UPDATE session_activity SET ${sets.join(', ')} WHERE session_id = @id`).run(values);
  }
}
