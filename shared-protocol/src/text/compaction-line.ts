import type { SessionEventOf } from '../rpc/events.js';

/** "7.9k": tokens for one line. */
function tokens(n: number): string {
  return n < 1000 ? String(n) : `${(n / 1000).toFixed(1)}k`;
}

/**
 * The one line a transcript shows where the history was compacted (the app and the CLI alike):
 * how full the context was before and after, and what was cut or summarized.
 */
export function compactionLine(event: SessionEventOf<'context.compacted'>): string {
  const what: string[] = [];
  if (event.cutOutputs.length > 0) {
    what.push(`${event.cutOutputs.length} older tool output${event.cutOutputs.length === 1 ? '' : 's'} cut`);
  }
  if (event.summarized > 0) what.push(`${event.summarized} earlier messages summarized`);
  const why = event.reason === 'overflow' ? 'the model refused a request as too long' : 'near the limit';
  return `Context compacted (${why}): ${tokens(event.tokensBefore)} → ${tokens(event.tokensAfter)} of ${tokens(event.window)} tokens; ${what.join(', ')}.`;
}
