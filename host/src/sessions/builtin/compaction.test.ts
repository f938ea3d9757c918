import { describe, expect, it } from 'vitest';
import type { ChatMessage, ModelEvent, ModelProvider, ModelRequest } from '../../models/types.js';
import { SUMMARY_HEADER, applyCompaction, compactHistory, cutToHeadAndTail } from './compaction.js';
import { ContextBudget } from './context-budget.js';

/** Answers every request with one summary, and keeps the requests. */
class Summarizer implements ModelProvider {
  readonly spec = 'summarizer';
  readonly requests: ModelRequest[] = [];
  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    this.requests.push(request);
    await Promise.resolve();
    yield { type: 'text', text: 'They asked for a fix; files were read.' };
    yield { type: 'usage', inputTokens: 100, outputTokens: 10 };
    yield { type: 'end', stopReason: 'end' };
  }
}

/** A user request, then `turns` tool calls each with an output of `size` characters. */
function history(turns: number, size: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'user', text: 'fix it' }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: 'assistant',
      text: `step ${i}`,
      toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: '{}' }],
    });
    messages.push({
      role: 'tool',
      results: [{ toolCallId: `c${i}`, name: 'read_file', output: `${i}`.repeat(size), isError: false }],
    });
  }
  return messages;
}

function input(messages: ChatMessage[], model: Summarizer, window: number) {
  return {
    provider: model,
    model: 'm',
    budget: new ContextBudget(window),
    system: 'system',
    tools: [],
    history: messages,
    reason: 'limit' as const,
    signal: new AbortController().signal,
    onUsage: () => undefined,
  };
}

describe('compaction', () => {
  it('cuts a text to its head and tail, saying how much went', () => {
    expect(cutToHeadAndTail('short', 3, 3)).toBe('short');
    expect(cutToHeadAndTail('abcdefghij', 2, 3)).toBe('ab\n… [5 characters cut to fit the context window]\nhij');
  });

  it('first cuts older tool outputs, keeping the newest two, without a model call', async () => {
    const model = new Summarizer();
    const messages = history(6, 3000);
    const event = await compactHistory(input(messages, model, 16_384));
    expect(model.requests).toHaveLength(0);
    expect(event).toMatchObject({ cutOutputs: ['c0', 'c1', 'c2', 'c3'], summarized: 0, reason: 'limit' });
    const outputs = messages.flatMap((m) => (m.role === 'tool' ? m.results.map((r) => r.output.length) : []));
    expect(outputs.slice(4)).toEqual([3000, 3000]);
    expect(outputs.slice(0, 4).every((n) => n < 1300)).toBe(true);
  });

  it('then has the same model summarize the oldest turns, the rest starting with its own turn', async () => {
    const model = new Summarizer();
    const messages = history(40, 1000);
    const event = await compactHistory(input(messages, model, 8192));
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]).toMatchObject({ model: 'm', tools: [] });
    expect(event!.summarized).toBeGreaterThan(0);
    expect(messages[0]).toEqual({ role: 'user', text: `${SUMMARY_HEADER}\n\nThey asked for a fix; files were read.` });
    expect(messages[1]?.role).toBe('assistant');
    expect(event!.tokensAfter).toBeLessThanOrEqual(new ContextBudget(8192).target);
    // Applied again to the same history, the logged event gives the same messages.
    const again = history(40, 1000);
    applyCompaction(again, event!);
    expect(again).toEqual(messages);
  });
});
