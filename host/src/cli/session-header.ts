import type { SessionSummary } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';

const STATUS_WORDS = { read: '', cut: ' (cut)', 'left-out': ' (left out)' } as const;

/** "12.3k": tokens for a one-line glance. */
function tokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}

/**
 * What `tether sessions show` prints above a transcript: how it is steered (model, mode), what it
 * spent against its budget, the instruction files the last run took in and how full the model's
 * context is. Paths and an agent's names are its text: escaped before they reach the terminal.
 */
export function sessionHeaderLines(session: SessionSummary): string[] {
  const lines: string[] = [...steeringLines(session)];
  const files = session.activity?.instructions;
  if (files !== undefined) {
    lines.push(
      files.length === 0
        ? 'Instructions: none (no AGENTS.md or CLAUDE.md applies)'
        : `Instructions: ${files.map((f) => `${visibleText(f.path)}${STATUS_WORDS[f.status]}`).join(', ')}`,
    );
  }
  const context = session.activity?.context;
  if (context !== undefined && context.window > 0) {
    const percent = Math.round((context.tokens / context.window) * 100);
    const compacted =
      context.compactions === 0 ? '' : `, compacted ${context.compactions} time${context.compactions === 1 ? '' : 's'}`;
    lines.push(`Context: ${tokens(context.tokens)} of ${tokens(context.window)} tokens (${percent}%)${compacted}`);
  }
  return lines;
}

/** "16.0k tokens or $2.00". */
function budgetWords(budget: NonNullable<SessionSummary['budget']>): string {
  const tokenPart = budget.tokens !== undefined ? [`${tokens(budget.tokens)} tokens`] : [];
  const dollarPart = budget.usd !== undefined ? [`$${budget.usd.toFixed(2)}`] : [];
  return [...tokenPart, ...dollarPart].join(' or ');
}

/** Model and mode; tokens (the last run's and the session's), cost where known, and the budget. */
function steeringLines(session: SessionSummary): string[] {
  const out: string[] = [];
  const model = session.agentModel ? `${session.agent ?? session.model} on ${session.agentModel.name}` : session.model;
  const mode = session.mode ? ` · mode: ${session.mode.name}` : '';
  if (session.kind !== 'terminal') out.push(`Model: ${visibleText(model)}${visibleText(mode)}`);
  const a = session.activity;
  if (!a || (a.inputTokens === 0 && a.outputTokens === 0 && !session.budget)) return out;
  const run =
    a.runInputTokens !== undefined
      ? `last run ${tokens(a.runInputTokens)} in / ${tokens(a.runOutputTokens ?? 0)} out; `
      : '';
  const unpriced = a.unpricedCalls ? ` (${a.unpricedCalls} calls without a known price)` : '';
  const cost = a.costUsd !== undefined ? `, $${a.costUsd.toFixed(4)}${unpriced}` : '';
  const budget = session.budget
    ? ` · budget ${budgetWords(session.budget)}${a.budgetReached ? ' (reached: it waits for you)' : ''}`
    : '';
  out.push(`Spent: ${run}session ${tokens(a.inputTokens)} in / ${tokens(a.outputTokens)} out${cost}${budget}`);
  return out;
}
