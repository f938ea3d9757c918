import type { SessionBudget, SessionCommand, SessionSummary } from '@tether/shared-protocol';

/** The pickers of the steer bar. */
export type SteerPanelName = 'mode' | 'model' | 'budget';

/** "12.3 k" tokens. */
export function tokenCount(n: number): string {
  return n < 1000 ? String(n) : n < 1_000_000 ? `${(n / 1000).toFixed(1)} k` : `${(n / 1_000_000).toFixed(1)} M`;
}

/** "$0.0123" under a dollar, "$1.23" from one. */
export function dollars(usd: number): string {
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** "50.0 k tokens", "$2.00", or both. */
export function budgetLine(budget: SessionBudget): string {
  return [
    ...(budget.tokens !== undefined ? [`${tokenCount(budget.tokens)} tokens`] : []),
    ...(budget.usd !== undefined ? [dollars(budget.usd)] : []),
  ].join(' or ');
}

/**
 * The session's spend in one line: its tokens (in and out together), its cost where known (with
 * calls whose price is not known said apart, never priced by guess), and its budget. "Not
 * reported" for an agent that never said what it used.
 */
export function spendLine(session: Pick<SessionSummary, 'activity' | 'budget'>): string {
  const a = session.activity;
  const budget = session.budget ? ` of ${budgetLine(session.budget)}` : '';
  if (!a) return session.budget ? `Budget ${budgetLine(session.budget)}` : 'Spend';
  const tokens = a.inputTokens + a.outputTokens;
  if (tokens === 0 && (a.unreportedRuns ?? 0) > 0) return `Spend not reported${budget}`;
  const cost = a.costUsd !== undefined ? ` · ${dollars(a.costUsd)}${a.unpricedCalls ? '+' : ''}` : '';
  return `${tokenCount(tokens)} tokens${cost}${budget}`;
}

/** The last run's tokens, in and out ("1.2 k in · 340 out"), where kept. */
export function runTokens(session: Pick<SessionSummary, 'activity'>): string | undefined {
  const a = session.activity;
  if (a?.runInputTokens === undefined) return undefined;
  return `${tokenCount(a.runInputTokens)} in · ${tokenCount(a.runOutputTokens ?? 0)} out`;
}

/** The model a session runs, as shown: an agent's own where it says, else its model (or agent). */
export function modelLabel(session: Pick<SessionSummary, 'kind' | 'model' | 'agent' | 'agentModel'>): string {
  if (session.kind === 'agent') return session.model;
  return session.agentModel?.name ?? 'its default';
}

/**
 * The commands that match what is typed after `/`: those whose name starts with it first, then
 * those that contain it, each group in the session's order. A name may hold spaces (an agent's
 * `memory show`), so the whole of what is typed is matched.
 */
export function matchingCommands(commands: readonly SessionCommand[], typed: string): SessionCommand[] {
  const word = typed.replace(/^\//, '').trimStart().toLowerCase();
  if (word === '') return [...commands];
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(word));
  const contains = commands.filter(
    (c) => !c.name.toLowerCase().startsWith(word) && c.name.toLowerCase().includes(word),
  );
  return [...starts, ...contains];
}

/**
 * Whether the composer's text is a command being typed, so the list shows: `/` first (not `//`),
 * one line, and not yet a whole command's name followed by a space (then its arguments are typed).
 */
export function typingCommand(text: string, commands: readonly SessionCommand[]): boolean {
  if (!text.startsWith('/') || text.startsWith('//') || text.includes('\n')) return false;
  const typed = text.slice(1).toLowerCase();
  return !commands.some((c) => typed.startsWith(`${c.name.toLowerCase()} `));
}
