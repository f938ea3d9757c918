import { afterEach, describe, expect, it } from 'vitest';
import type { ContextRun } from '../../../test/support/context-run.js';
import { contextRun } from '../../../test/support/context-run.js';

let run: ContextRun | undefined;
afterEach(() => {
  run?.close();
  run = undefined;
});

describe('a long run on a model with a small window', () => {
  it('finishes: no request passes the window, and each compaction is logged so the log rebuilds what the model saw', async () => {
    run = await contextRun({ window: 8192, steps: 150 });
    expect(run.result.status).toBe('done');
    expect(run.model.refused).toBe(0);
    expect(run.model.largest).toBeLessThanOrEqual(8192 - 2048);
    const compactions = run.events.filter((e) => e.type === 'context.compacted');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.some((e) => e.summarized > 0)).toBe(true);
    expect(compactions.every((e) => e.tokensAfter < e.tokensBefore && e.reason === 'limit')).toBe(true);
    // The rebuilt history is the last request as sent, and the model's final answer.
    expect(run.rebuilt.slice(0, -1)).toEqual(run.model.lastMessages);
    expect(run.rebuilt.at(-1)).toMatchObject({ role: 'assistant', text: 'All done.' });
  });

  it('compacts once and tries again when the provider refuses a request the estimate undercounted', async () => {
    // A server that reports no usage and counts 2.5 characters a token: the loop's estimate runs short.
    run = await contextRun({ window: 8192, steps: 60, reportShare: 0, charsPerToken: 2.5 });
    expect(run.result.status).toBe('done');
    expect(run.model.refused).toBeGreaterThan(0);
    const overflow = run.events.filter((e) => e.type === 'context.compacted' && e.reason === 'overflow');
    expect(overflow.length).toBe(run.model.refused);
    expect(run.rebuilt.slice(0, -1)).toEqual(run.model.lastMessages);
  });
});
