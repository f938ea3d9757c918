import type { SessionEventBody } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { TranscriptState } from './transcript.js';
import { EMPTY_TRANSCRIPT, applyBatch, foldEvents } from './transcript.js';
import { fillGap, gaps, skipTo } from './transcript-gaps.js';
import { approval, demoRun, log } from './transcript-fixtures.js';

describe('transcript gaps', () => {
  it('skips ahead on a tail watch and fills the gap from history pages, nothing lost or doubled', () => {
    const bodies: SessionEventBody[] = [];
    for (let i = 0; i < 40; i++) {
      bodies.push(
        { type: 'message', messageId: `u${i}`, role: 'user', text: `q${i}` },
        { type: 'tool.started', toolCallId: `t${i}`, tool: 'shell', title: `c${i}`, input: {} },
        { type: 'tool.finished', toolCallId: `t${i}`, tool: 'shell', ok: true, output: `o${i}`, truncated: false },
      );
    }
    const events = log(bodies); // 120 events
    const whole = foldEvents(EMPTY_TRANSCRIPT, events);
    // Held 10, came back after 100 more: the watch skipped (10, 100] and replays 101..120.
    let state: TranscriptState = foldEvents(EMPTY_TRANSCRIPT, events.slice(0, 10));
    state = skipTo(state, 10, 100);
    // A tool call starting inside the gap (seq 100) finishes after it (seq 101).
    state = applyBatch(state, events.slice(100)).state;
    expect(state.lastSeq).toBe(120);
    expect(gaps(state)).toMatchObject([{ after: 10, to: 100 }]);
    // Pages of 30, newest first.
    for (let guard = 0; guard < 10 && gaps(state).length > 0; guard++) {
      const gap = gaps(state)[0]!;
      const after = Math.max(gap.after, gap.to - 30);
      state = fillGap(state, gap.id, events.slice(after, gap.to), after);
    }
    expect(gaps(state)).toEqual([]);
    expect(state.applied).toBe(120);
    const ids = state.items.map((item) => item.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(whole.items.map((item) => item.id).sort());
    expect(state.items.filter((item) => item.kind === 'message').map((item) => item.id)).toEqual(
      whole.items.filter((item) => item.kind === 'message').map((item) => item.id),
    );
  });

  it('fills a gap that cut a reply and a tool call short: each stays one item, in its place, finished', () => {
    const bodies: SessionEventBody[] = [
      { type: 'message', messageId: 'u1', role: 'user', text: 'go' },
      { type: 'message.delta', messageId: 'm1', text: 'Step 1 ' },
      { type: 'tool.started', toolCallId: 't1', tool: 'shell', title: 'ls', input: { command: 'ls' } },
      { type: 'approval.requested', approval: approval('pending') },
      { type: 'plan', planId: 'p1', entries: [{ content: 'x', status: 'pending', priority: 'medium' }] },
      // Held up to here (seq 5): the reply is streaming, the tool running, the approval waiting,
      // the plan not begun. The rest was skipped, then read back a page at a time, newest first.
      { type: 'message.delta', messageId: 'm1', text: 'of 2.' },
      { type: 'message', messageId: 'm1', role: 'assistant', text: 'Step 1 of 2.' },
      {
        type: 'tool.finished',
        toolCallId: 't1',
        tool: 'shell',
        ok: true,
        output: 'a\n',
        truncated: false,
        exitCode: 0,
      },
      { type: 'message', messageId: 'm2', role: 'assistant', text: 'Step 2 of 2.' },
      { type: 'approval.resolved', approval: approval('allowed') },
      { type: 'plan', planId: 'p1', entries: [{ content: 'x', status: 'in_progress', priority: 'medium' }] },
      { type: 'plan', planId: 'p1', entries: [{ content: 'x', status: 'completed', priority: 'medium' }] },
      { type: 'run.finished', runId: 'r1', status: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
    ];
    const events = log(bodies);
    const whole = foldEvents(EMPTY_TRANSCRIPT, events);
    for (const pageSize of [1, 2, 3, 9]) {
      let state = skipTo(foldEvents(EMPTY_TRANSCRIPT, events.slice(0, 5)), 5, events.length);
      for (let guard = 0; guard < 10 && gaps(state).length > 0; guard++) {
        const gap = gaps(state)[0]!;
        const after = Math.max(gap.after, gap.to - pageSize);
        state = fillGap(state, gap.id, events.slice(after, gap.to), after);
      }
      const ids = state.items.map((item) => item.id);
      expect(ids, `pages of ${pageSize}`).toEqual(whole.items.map((item) => item.id));
      expect(
        state.items.find((item) => item.id === 'm1'),
        `pages of ${pageSize}`,
      ).toMatchObject({
        text: 'Step 1 of 2.',
        streaming: false,
      });
      expect(
        state.items.find((item) => item.id === 'tool:t1'),
        `pages of ${pageSize}`,
      ).toMatchObject({
        title: 'ls',
        status: 'ok',
        output: 'a\n',
        exitCode: 0,
      });
      expect((state.items.find((item) => item.id === 'tool:t1') as { input: string }).input).toContain('ls');
      expect(
        state.items.find((item) => item.id === 'approval:a1'),
        `pages of ${pageSize}`,
      ).toMatchObject({
        approval: { status: 'allowed' },
      });
      expect(
        state.items.find((item) => item.id === 'plan:p1'),
        `pages of ${pageSize}`,
      ).toMatchObject({
        entries: [{ status: 'completed' }],
      });
    }
  });

  it('ignores a skip that does not start where the transcript ends', () => {
    const state = foldEvents(EMPTY_TRANSCRIPT, log(demoRun));
    expect(skipTo(state, 3, 50)).toBe(state);
  });
});
