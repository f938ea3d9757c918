import type { SessionEventBody } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { SessionRecord } from '../../store/session-store.js';
import { AcpHistory, MAX_HISTORY_CHARS, MAX_HISTORY_EVENTS } from './acp-history.js';
import { MAX_MESSAGE_CHARS } from './acp-update-log.js';

function setup() {
  const events: SessionEventBody[] = [];
  let n = 0;
  const history = new AcpHistory({
    append: (body) => events.push(body),
    clock: new ManualClock(),
    newId: (prefix) => `${prefix}${++n}`,
    record: () => ({ cwd: '/work/project' }) as SessionRecord,
  });
  const text = (value: string) => ({ type: 'text' as const, text: value });
  return { history, events, text };
}

describe('a replayed conversation as the transcript', () => {
  it('joins each side’s chunks into messages, keeps tool calls and plans in order, leaves thoughts out', () => {
    const { history, events, text } = setup();
    history.record({ sessionUpdate: 'user_message_chunk', content: text('fix ') });
    history.record({ sessionUpdate: 'user_message_chunk', content: text('it') });
    history.record({ sessionUpdate: 'agent_thought_chunk', content: text('thinking') });
    history.record({ sessionUpdate: 'agent_message_chunk', content: text('On it.') });
    history.record({ sessionUpdate: 'plan', entries: [{ content: 'look', status: 'completed', priority: 'low' }] });
    history.record({
      sessionUpdate: 'tool_call',
      toolCallId: 'a',
      title: 'Run tests',
      kind: 'execute',
      status: 'pending',
    });
    history.record({ sessionUpdate: 'agent_message_chunk', content: text('Done.') });
    // Nothing is written until the load has succeeded.
    expect(events).toEqual([]);
    expect(history.finish()).toBe(6);
    expect(events.map((e) => (e.type === 'message' ? `${e.role}: ${e.text}` : e.type))).toEqual([
      'user: fix it',
      'assistant: On it.',
      'plan',
      'tool.started',
      'assistant: Done.',
      // A call the replay never finished is said to have no known end.
      'tool.finished',
    ]);
    expect(events.some((e) => e.type === 'message.delta')).toBe(false);
    expect(history).toMatchObject({ updates: 7, skipped: 1 });
  });

  it('keeps the newest events within its bounds and says how many older ones it left out', () => {
    const { history, events, text } = setup();
    for (let i = 0; i < MAX_HISTORY_EVENTS + 250; i++) {
      history.record({
        sessionUpdate: i % 2 === 0 ? 'user_message_chunk' : 'agent_message_chunk',
        content: text(`m${i}`),
      });
    }
    history.finish();
    expect(events[0]).toEqual({
      type: 'notice',
      level: 'info',
      text: 'The earlier conversation is longer than Tether keeps of it: its oldest 250 events are left out.',
    });
    expect(events).toHaveLength(MAX_HISTORY_EVENTS + 1);
    expect(events.at(-1)).toMatchObject({ text: `m${MAX_HISTORY_EVENTS + 249}` });

    // And by size: a few huge messages push out the older ones, however few there are.
    const big = setup();
    const huge = 'x'.repeat(MAX_MESSAGE_CHARS);
    for (let i = 0; i < 40; i++) {
      big.history.record({
        sessionUpdate: i % 2 === 0 ? 'user_message_chunk' : 'agent_message_chunk',
        content: big.text(huge),
      });
    }
    big.history.finish();
    const kept = big.events.filter((e) => e.type === 'message');
    expect(kept.reduce((sum, e) => sum + JSON.stringify(e).length, 0)).toBeLessThanOrEqual(MAX_HISTORY_CHARS);
    expect(big.events[0]).toMatchObject({ type: 'notice' });
  });
});
