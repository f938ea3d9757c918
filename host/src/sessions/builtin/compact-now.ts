import { DEFAULT_CONTEXT_WINDOW } from '../../models/context-window.js';
import type { ChatMessage, ModelProvider } from '../../models/types.js';
import { ProviderError } from '../../models/types.js';
import type { RunResult } from '../session-backend.js';
import { BudgetStop } from '../spend-guard.js';
import type { RunHost } from './agent-run.js';
import { compactHistory } from './compaction.js';
import { ContextBudget } from './context-budget.js';

/**
 * `/compact`: a run that compacts the history now instead of making a turn. Every turn but the
 * newest is summarized by the session's model (one call, under the budget like any other) and the
 * older tool outputs are cut, logged as a `context.compacted` event of reason `asked`, which every
 * later rebuild of the history applies.
 */
export async function compactNow(
  host: RunHost,
  provider: ModelProvider,
  model: string,
  history: ChatMessage[],
  focus: string | undefined,
): Promise<RunResult> {
  const budget = new ContextBudget(host.contextWindow ?? DEFAULT_CONTEXT_WINDOW);
  const usage = { inputTokens: 0, outputTokens: 0 };
  host.progress?.({ modelCall: 1 });
  try {
    const event = await compactHistory({
      provider,
      model,
      budget,
      system: host.system,
      tools: host.tools().map((t) => t.spec),
      history,
      reason: 'asked',
      signal: host.signal,
      force: true,
      ...(focus ? { focus } : {}),
      ...(host.allowOutput
        ? { allow: (request, maxTokens) => host.allowOutput!(budget.measure(request), maxTokens) }
        : {}),
      onUsage: (inputTokens, outputTokens) => {
        usage.inputTokens += inputTokens;
        usage.outputTokens += outputTokens;
        host.progress?.({ usage: { inputTokens, outputTokens, ...host.costOf?.(inputTokens, outputTokens) } });
      },
    });
    if (!event) {
      host.append({ type: 'notice', level: 'info', text: 'Nothing to compact yet: the conversation is one turn.' });
      return { status: 'done', usage };
    }
    host.append(event);
    host.progress?.({ compacted: true, context: { tokens: event.tokensAfter, window: budget.window } });
    return { status: 'done', usage };
  } catch (error) {
    if (error instanceof BudgetStop) {
      host.append({ type: 'notice', level: 'warning', text: error.text });
      return { status: 'done', usage, budgetReached: error.text };
    }
    if (host.signal.aborted || (error instanceof ProviderError && error.kind === 'aborted'))
      return { status: 'interrupted', usage };
    return { status: 'error', error: error instanceof Error ? error.message : String(error), usage };
  }
}
