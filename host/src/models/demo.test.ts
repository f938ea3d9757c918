import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tether/shared-protocol/testing';
import { collect, collectFailure, makeRequest, textOf } from '../../test/fakes/model-stream.js';
import { chunkWords, DemoProvider } from './demo.js';
import type { ChatMessage, ModelEvent, ToolSpec } from './types.js';

const SHELL: ToolSpec = { name: 'shell', description: 'Runs a command', inputSchema: { type: 'object' } };
const FIRST_TURN: ChatMessage[] = [{ role: 'user', text: 'hi' }];
const afterShell = (output: string, isError: boolean): ChatMessage[] => [
  ...FIRST_TURN,
  {
    role: 'assistant',
    text: 'listing',
    toolCalls: [{ id: 'demo-call-1', name: 'shell', arguments: '{"command":"ls -la"}' }],
  },
  { role: 'tool', results: [{ toolCallId: 'demo-call-1', name: 'shell', output, isError }] },
];

const demo = new DemoProvider({ delayMs: 0 });

describe('DemoProvider', () => {
  it('introduces itself in small chunks, then asks to run ls -la through the shell tool', async () => {
    const events = await collect(demo.stream(makeRequest({ messages: FIRST_TURN, tools: [SHELL] })));
    expect(textOf(events)).toBe(
      "This is Tether's built-in demo model (no API key is set, so no real AI is answering). " +
        "I'll list the files in this session's folder so you can see how approvals work.",
    );
    for (const event of events) {
      if (event.type === 'text') expect(event.text.trim().split(/\s+/).length).toBeLessThanOrEqual(2);
    }
    expect(events.slice(-3)).toEqual([
      { type: 'tool-call', call: { id: 'demo-call-1', name: 'shell', arguments: '{"command":"ls -la"}' } },
      { type: 'usage', inputTokens: expect.any(Number) as number, outputTokens: expect.any(Number) as number },
      { type: 'end', stopReason: 'tool-use' },
    ]);
  });

  it('summarises the command output and ends the turn', async () => {
    const events = await collect(
      demo.stream(makeRequest({ messages: afterShell('a\nb\nc\n', false), tools: [SHELL] })),
    );
    expect(textOf(events)).toBe(
      'The command finished; it printed 3 lines. Set ANTHROPIC_API_KEY or OPENAI_API_KEY (or use --model) to talk to a real model.',
    );
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end' });
  });

  it('acknowledges a denied command and stops', async () => {
    const events = await collect(
      demo.stream(makeRequest({ messages: afterShell('The user denied this command.', true), tools: [SHELL] })),
    );
    expect(textOf(events)).toMatch(/^The command was denied/);
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end' });
  });

  it('reports a command that failed for another reason', async () => {
    const events = await collect(
      demo.stream(makeRequest({ messages: afterShell('ls: cannot open', true), tools: [SHELL] })),
    );
    expect(textOf(events)).toMatch(/^The command failed: ls: cannot open\./);
  });

  it('only talks when there is no shell tool', async () => {
    const events = await collect(demo.stream(makeRequest({ messages: FIRST_TURN, tools: [] })));
    expect(textOf(events)).toContain('built-in demo model');
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end' });
  });

  it('counts words as tokens', async () => {
    const events = await collect(
      demo.stream(makeRequest({ system: 'one two', messages: [{ role: 'user', text: 'three four five' }] })),
    );
    const usage = events.find((event): event is Extract<ModelEvent, { type: 'usage' }> => event.type === 'usage');
    expect(usage?.inputTokens).toBe(5);
    expect(usage?.outputTokens).toBe(textOf(events).split(/\s+/).filter(Boolean).length);
  });

  it('paces its chunks by delayMs on the clock', async () => {
    const clock = new ManualClock();
    const iterator = new DemoProvider({ delayMs: 40, clock })
      .stream(makeRequest({ messages: FIRST_TURN, tools: [SHELL] }))
      [Symbol.asyncIterator]();
    expect((await iterator.next()).value).toEqual({ type: 'text', text: 'This is ' });
    const second = iterator.next();
    let arrived = false;
    void second.then(() => (arrived = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(arrived).toBe(false);
    clock.advance(40);
    expect((await second).value).toEqual({ type: 'text', text: "Tether's built-in " });
    await iterator.return(undefined);
  });

  it('stops promptly with an aborted error when the signal fires', async () => {
    const controller = new AbortController();
    const iterator = new DemoProvider({ delayMs: 10_000 })
      .stream(makeRequest({ messages: FIRST_TURN, tools: [SHELL], signal: controller.signal }))
      [Symbol.asyncIterator]();
    await iterator.next();
    const next = iterator.next();
    const abortedAt = Date.now();
    controller.abort();
    await expect(next).rejects.toMatchObject({ name: 'ProviderError', kind: 'aborted' });
    expect(Date.now() - abortedAt).toBeLessThan(500);
  });

  it('yields nothing when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { events, error } = await collectFailure(demo.stream(makeRequest({ signal: controller.signal })));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ kind: 'aborted' });
  });
});

describe('chunkWords', () => {
  it('splits into two-word chunks that join back to the text', () => {
    expect(chunkWords('one two three four five')).toEqual(['one two ', 'three four ', 'five']);
    expect(chunkWords('')).toEqual([]);
  });
});
