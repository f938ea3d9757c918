import type { SessionEventBody } from '@tether/shared-protocol';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_TRANSCRIPT,
  MAX_ITEMS,
  applyBatch,
  applyEvent,
  foldEvents,
  pendingApprovals,
  trimForCache,
} from './transcript.js';
import { demoRun, log } from './transcript-fixtures.js';
import { TranscriptStateSchema } from './transcript-schema.js';

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

  it('marks where the context was compacted', () => {
    const state = foldEvents(
      EMPTY_TRANSCRIPT,
      log([
        { type: 'message', messageId: 'm1', role: 'user', text: 'go' },
        {
          type: 'context.compacted',
          reason: 'limit',
          cutOutputs: ['c1'],
          headChars: 800,
          tailChars: 400,
          summarized: 6,
          summary: 'earlier',
          tokensBefore: 6000,
          tokensAfter: 2000,
          window: 8192,
        },
      ]),
    );
    expect(state.items[1]).toMatchObject({ kind: 'notice', level: 'info', seq: 2 });
    expect(state.items[1]).toHaveProperty('text', expect.stringContaining('Context compacted'));
    expect(v.safeParse(TranscriptStateSchema, state).success).toBe(true);
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
