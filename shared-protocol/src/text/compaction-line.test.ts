import { describe, expect, it } from 'vitest';
import { compactionLine } from './compaction-line.js';

describe('the compaction line', () => {
  it('says how full the context was and what was cut or summarized', () => {
    const event = {
      type: 'context.compacted' as const,
      sessionId: 's',
      seq: 9,
      at: 0,
      reason: 'limit' as const,
      cutOutputs: ['a', 'b'],
      headChars: 800,
      tailChars: 400,
      summarized: 0,
      tokensBefore: 5200,
      tokensAfter: 2900,
      window: 8192,
    };
    expect(compactionLine(event)).toBe(
      'Context compacted (near the limit): 5.2k → 2.9k of 8.2k tokens; 2 older tool outputs cut.',
    );
    expect(compactionLine({ ...event, reason: 'overflow', cutOutputs: ['a'], summarized: 14, summary: 's' })).toBe(
      'Context compacted (the model refused a request as too long): 5.2k → 2.9k of 8.2k tokens; 1 older tool output cut, 14 earlier messages summarized.',
    );
  });
});
