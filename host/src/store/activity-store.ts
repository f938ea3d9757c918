import type { SessionActivity } from '@tether/shared-protocol';
import { DEFAULT_MAX_MODEL_CALLS } from '@tether/shared-protocol';
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
}

/** A change to a session's activity: counters add, the rest replaces. */
export interface ActivityChange {
  runStartedAt?: number;
  runEndedAt?: number | null;
  /** Replaces the run's model-call count (a new run starts again from 0). */
  modelCalls?: number;
  addToolCalls?: number;
  addTokens?: { input: number; output: number; costUsd?: number };
  /** Runs that ended without saying what they used. */
  addUnreportedRuns?: number;
  now?: string;
  paused?: boolean;
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
      now: row?.now ?? '',
      paused: (row?.paused ?? 0) !== 0,
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
    if (change.addToolCalls !== undefined) {
      sets.push('tool_calls = tool_calls + @addToolCalls');
      values['addToolCalls'] = change.addToolCalls;
    }
    if (change.addUnreportedRuns !== undefined) {
      sets.push('unreported_runs = unreported_runs + @addUnreported');
      values['addUnreported'] = change.addUnreportedRuns;
    }
    if (change.addTokens !== undefined) {
      sets.push('input_tokens = input_tokens + @addIn', 'output_tokens = output_tokens + @addOut');
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
