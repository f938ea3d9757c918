import type { SessionEvent, SessionEventBody } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { UNFINISHED_TOOL_OUTPUT, buildHistory } from './history.js';

function log(...bodies: SessionEventBody[]): SessionEvent[] {
  return bodies.map((body, i): SessionEvent => ({ ...body, sessionId: 's', seq: i + 1, at: 0 }));
}

const user = (text: string): SessionEventBody => ({ type: 'message', messageId: `u${text}`, role: 'user', text });
const assistant = (text: string): SessionEventBody => ({
  type: 'message',
  messageId: `a${text}`,
  role: 'assistant',
  text,
});
const started = (id: string, input: unknown): SessionEventBody => ({
  type: 'tool.started',
  toolCallId: id,
  tool: 'shell',
  title: '',
  input,
});
const finished = (id: string, output: string, ok = true): SessionEventBody => ({
  type: 'tool.finished',
  toolCallId: id,
  tool: 'shell',
  ok,
  output,
  truncated: false,
});

describe('buildHistory', () => {
  it('rebuilds turns with tool calls and results', () => {
    const history = buildHistory(
      log(
        user('hi'),
        { type: 'message.delta', messageId: 'a1', text: 'Let me' },
        assistant('Let me look'),
        started('t1', { command: 'ls' }),
        started('t2', '{bad json'),
        finished('t1', 'a.txt'),
        finished('t2', 'invalid arguments', false),
        assistant('Done'),
        { type: 'run.finished', runId: 'r', status: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
        user('thanks'),
      ),
    );
    expect(history).toEqual([
      { role: 'user', text: 'hi' },
      {
        role: 'assistant',
        text: 'Let me look',
        toolCalls: [
          { id: 't1', name: 'shell', arguments: '{"command":"ls"}' },
          { id: 't2', name: 'shell', arguments: '{bad json' },
        ],
      },
      {
        role: 'tool',
        results: [
          { toolCallId: 't1', name: 'shell', output: 'a.txt', isError: false },
          { toolCallId: 't2', name: 'shell', output: 'invalid arguments', isError: true },
        ],
      },
      { role: 'assistant', text: 'Done', toolCalls: [] },
      { role: 'user', text: 'thanks' },
    ]);
  });

  it('answers a tool call that never finished', () => {
    const history = buildHistory(log(user('go'), started('t1', { command: 'sleep 99' })));
    expect(history[2]).toEqual({
      role: 'tool',
      results: [{ toolCallId: 't1', name: 'shell', output: UNFINISHED_TOOL_OUTPUT, isError: true }],
    });
  });

  it('starts a new turn for tool calls after results without assistant text', () => {
    const history = buildHistory(
      log(user('go'), started('t1', {}), finished('t1', 'x'), started('t2', {}), finished('t2', 'y')),
    );
    expect(history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
  });
});
