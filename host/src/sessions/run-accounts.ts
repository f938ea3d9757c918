import type { SessionStore } from '../store/session-store.js';
import type { RunProgress } from './session-backend.js';
import type { SpendState } from './spend-guard.js';

/**
 * What a run reports of itself, kept in the session's activity as it goes (model calls, tokens
 * and their cost, instructions, how full the context is), and what the session has spent
 * against its budget, read back before each model call.
 */
export function recordProgress(sessions: SessionStore, sessionId: string, progress: RunProgress): void {
  const { activity } = sessions;
  const { modelCall, usage, instructions, context, compacted } = progress;
  if (instructions) activity.change(sessionId, { instructions });
  if (context) activity.change(sessionId, { context });
  if (compacted) activity.change(sessionId, { addCompactions: 1 });
  if (modelCall !== undefined)
    activity.change(sessionId, { modelCalls: modelCall, now: `thinking (model call ${modelCall})` });
  if (usage) {
    activity.change(sessionId, {
      addTokens: {
        input: usage.inputTokens,
        output: usage.outputTokens,
        ...(usage.costUsd !== undefined ? { costUsd: usage.costUsd } : {}),
        ...(usage.unpriced ? { unpriced: true } : {}),
      },
    });
  }
}

/** The session's totals and its budget, as of now. */
export function spendOf(sessions: SessionStore, sessionId: string): SpendState {
  const activity = sessions.activity.get(sessionId);
  const { budget } = sessions.steering.get(sessionId);
  return {
    ...(budget ? { budget } : {}),
    tokens: activity.inputTokens + activity.outputTokens,
    usd: activity.costUsd ?? 0,
    unpricedCalls: activity.unpricedCalls ?? 0,
  };
}
