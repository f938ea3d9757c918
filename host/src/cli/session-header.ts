import type { SessionSummary } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';

const STATUS_WORDS = { read: '', cut: ' (cut)', 'left-out': ' (left out)' } as const;

/** "12.3k": tokens for a one-line glance. */
function tokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}

/**
 * What `tether sessions show` prints above a transcript: the instruction files the last run took
 * in and how full the model's context is. Empty for a session that reports neither (an ACP agent).
 * Paths come from the project's folders: escaped before they reach the terminal.
 */
export function sessionHeaderLines(session: SessionSummary): string[] {
  const lines: string[] = [];
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
