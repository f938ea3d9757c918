import type { Approval, SessionEvent, SessionEventBody } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { TranscriptState } from './transcript.js';
import {
  EMPTY_TRANSCRIPT,
  MAX_ITEMS,
  applyBatch,
  applyEvent,
  fillGap,
  foldEvents,
  gaps,
  pendingApprovals,
  skipTo,
  trimForCache,
} from './transcript.js';
import { TranscriptStateSchema } from './transcript-schema.js';

function log(bodies: SessionEventBody[], from = 1): SessionEvent[] {
  return bodies.map((body, i): SessionEvent => ({ ...body, sessionId: 's1', seq: from + i, at: 1000 + i }));
}

const approval = (status: Approval['status']): Approval => ({
  id: 'a1',
  sessionId: 's1',
  toolCallId: 't1',
  tool: 'shell',
  kind: 'shell',
  action: 'ls -la',
  cwd: '/work',
  place: 'local',
  createdAt: 1,
  status,
  ...(status === 'allowed'
    ? { decision: 'allow-once' as const, answeredBy: { kind: 'device' as const, id: 'd1', label: 'iPhone' } }
    : {}),
});

const demoRun: SessionEventBody[] = [
  { type: 'message', messageId: 'u1', role: 'user', text: 'hello' },
  { type: 'message.delta', messageId: 'm1', text: 'Hi ' },
  { type: 'message.delta', messageId: 'm1', text: 'there' },
  { type: 'message', messageId: 'm1', role: 'assistant', text: 'Hi there' },
  { type: 'tool.started', toolCallId: 't1', tool: 'shell', title: 'ls -la', input: { command: 'ls -la' } },
  { type: 'approval.requested', approval: approval('pending') },
  { type: 'approval.resolved', approval: approval('allowed') },
  { type: 'tool.finished', toolCallId: 't1', tool: 'shell', ok: true, output: 'a\nb\n', truncated: false, exitCode: 0 },
  { type: 'run.finished', runId: 'r1', status: 'done', usage: { inputTokens: 1, outputTokens: 2 } },
];

describe('transcript folding', () => {
  it('folds a run into messages, a tool row, an approval card and the run end', () => {
    const state = foldEvents(EMPTY_TRANSCRIPT, log(demoRun));
    expect(state.lastSeq).toBe(9);
    expect(state.applied).toBe(9);
    expect(state.items.map((i) => i.kind)).toEqual(['message', 'message', 'tool', 'approval', 'run']);
    expect(state.items[1]).toMatchObject({ text: 'Hi there', streaming: false });
    expect(state.items[2]).toMatchObject({ status: 'ok', output: 'a\nb\n', exitCode: 0, title: 'ls -la' });
    expect(state.items[3]).toMatchObject({ approval: { status: 'allowed' } });
    expect(pendingApprovals(state)).toEqual([]);
  });

  it('shows streaming text from deltas until the whole message arrives', () => {
    const state = foldEvents(EMPTY_TRANSCRIPT, log(demoRun.slice(0, 3)));
    expect(state.items[1]).toMatchObject({ kind: 'message', text: 'Hi there', streaming: true });
  });

  it('drops duplicates and refuses gaps, so nothing is doubled or skipped', () => {
    const events = log(demoRun);
    let state = foldEvents(EMPTY_TRANSCRIPT, events.slice(0, 4));
    const dup = applyEvent(state, events[2]!);
    expect(dup.outcome).toBe('duplicate');
    expect(dup.state).toBe(state);
    const gap = applyEvent(state, events[6]!);
    expect(gap.outcome).toBe('gap');
    expect(gap.state).toBe(state);
    state = foldEvents(state, events);
    expect(state).toEqual(foldEvents(EMPTY_TRANSCRIPT, events));
  });

  it('resumes from a cached state exactly as if folded in one go', () => {
    const events = log(demoRun);
    for (let cut = 0; cut <= events.length; cut++) {
      const cached = v.parse(
        TranscriptStateSchema,
        JSON.parse(JSON.stringify(foldEvents(EMPTY_TRANSCRIPT, events.slice(0, cut)))),
      );
      expect(foldEvents(cached, events.slice(cut))).toEqual(foldEvents(EMPTY_TRANSCRIPT, events));
    }
  });

  it('ends a message cut short by an interrupt', () => {
    const state = foldEvents(
      EMPTY_TRANSCRIPT,
      log([
        { type: 'message.delta', messageId: 'm1', text: 'half a' },
        { type: 'run.finished', runId: 'r1', status: 'interrupted', usage: { inputTokens: 0, outputTokens: 0 } },
      ]),
    );
    expect(state.items[0]).toMatchObject({ text: 'half a', streaming: false });
    expect(state.items[1]).toMatchObject({ kind: 'run', status: 'interrupted' });
  });

  it('keeps a bounded number of items, the oldest becoming a gap to read again', () => {
    const notices = Array.from({ length: MAX_ITEMS + 5 }, (_, i) => ({
      type: 'notice' as const,
      level: 'info' as const,
      text: `n${i}`,
    }));
    const state = foldEvents(EMPTY_TRANSCRIPT, log(notices));
    expect(state.items).toHaveLength(MAX_ITEMS + 1);
    expect(state.items[0]).toEqual({ kind: 'gap', id: 'gap:5', seq: 1, after: 0, to: 5 });
    expect(state.items[1]).toMatchObject({ text: 'n5' });
  });

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

  it('applies a batch up to a gap and says so', () => {
    const events = log(demoRun);
    const { state, applied, gap } = applyBatch(EMPTY_TRANSCRIPT, [...events.slice(0, 3), ...events.slice(5)]);
    expect([state.lastSeq, applied, gap]).toEqual([3, 3, true]);
  });

  it('caches the newest items, with one gap for the rest, and decodes it again', () => {
    const notices = Array.from({ length: 50 }, (_, i) => ({
      type: 'notice' as const,
      level: 'info' as const,
      text: `n${i}`,
    }));
    const trimmed = trimForCache(foldEvents(EMPTY_TRANSCRIPT, log(notices)), 10);
    expect(trimmed.items).toHaveLength(11);
    expect(trimmed.items[0]).toMatchObject({ kind: 'gap', after: 0, to: 40 });
    expect(trimmed.lastSeq).toBe(50);
    expect(v.safeParse(TranscriptStateSchema, trimmed).success).toBe(true);
  });

  it('refuses a damaged cache', () => {
    const damaged = { ...foldEvents(EMPTY_TRANSCRIPT, log(demoRun)), items: [{ kind: 'message', text: 1 }] };
    expect(v.safeParse(TranscriptStateSchema, damaged).success).toBe(false);
  });
});

describe('an ACP agent’s plan and tool details', () => {
  const agentRun: SessionEventBody[] = [
    {
      type: 'plan',
      planId: 'p1',
      entries: [
        { content: 'read it', status: 'in_progress' },
        { content: 'change it', status: 'pending' },
      ],
    },
    {
      type: 'tool.started',
      toolCallId: 't1',
      tool: 'edit',
      title: 'Edit a.txt',
      input: { path: 'a.txt' },
      kind: 'edit',
    },
    {
      type: 'tool.updated',
      toolCallId: 't1',
      tool: 'edit',
      title: 'Edit a.txt (2 lines)',
      diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n',
    },
    { type: 'tool.finished', toolCallId: 't1', tool: 'edit', ok: true, output: '', truncated: false },
    {
      type: 'plan',
      planId: 'p1',
      entries: [
        { content: 'read it', status: 'completed' },
        { content: 'change it', status: 'completed' },
      ],
    },
  ];

  it('a later plan replaces the checklist in place; a tool keeps its kind and diff through updates', () => {
    const state = foldEvents(EMPTY_TRANSCRIPT, log(agentRun));
    expect(state.items.map((i) => i.kind)).toEqual(['plan', 'tool']);
    expect(state.items[0]).toMatchObject({ entries: [{ status: 'completed' }, { status: 'completed' }] });
    expect(state.items[1]).toMatchObject({
      status: 'ok',
      title: 'Edit a.txt (2 lines)',
      toolKind: 'edit',
      diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n',
    });
    expect(v.safeParse(TranscriptStateSchema, state).success).toBe(true);
  });

  it('a transcript cached before tool details decodes with none', () => {
    const state = foldEvents(EMPTY_TRANSCRIPT, log(demoRun));
    const old = JSON.parse(JSON.stringify(state)) as { items: Record<string, unknown>[] };
    for (const item of old.items) {
      delete item.toolKind;
      delete item.diff;
      delete item.diffTruncated;
    }
    const decoded = v.safeParse(TranscriptStateSchema, old);
    expect(decoded.success).toBe(true);
    expect(decoded.success && decoded.output.items[2]).toMatchObject({ toolKind: '', diff: '' });
  });
});
