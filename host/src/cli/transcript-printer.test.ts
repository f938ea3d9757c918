import type { SessionEvent } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { collector } from '../../test/support/run-command.js';
import { TranscriptPrinter } from './transcript-printer.js';

const finished = (over: Partial<Extract<SessionEvent, { type: 'run.finished' }>>): SessionEvent => ({
  type: 'run.finished',
  sessionId: 's1',
  seq: 1,
  at: 0,
  runId: 'r1',
  status: 'done',
  usage: { inputTokens: 120, outputTokens: 45 },
  ...over,
});

describe('the end of a run in the CLI transcript', () => {
  it('says the tokens a run used, and that they are unknown when the back-end did not report them', () => {
    const out = collector();
    const printer = new TranscriptPrinter(out.stream, false);
    printer.print(finished({}));
    printer.print(finished({ seq: 2, runId: 'r2', usage: { inputTokens: 0, outputTokens: 0 }, usageReported: false }));
    expect(out.text()).toContain('— run done (120 in / 45 out tokens)');
    expect(out.text()).toContain('— run done (tokens not reported)');
    expect(out.text()).not.toContain('0 in / 0 out');
  });
});
