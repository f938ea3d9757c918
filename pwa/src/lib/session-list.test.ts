import type { SessionSummary } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { mergeSummary, replaceList, sortSessions, totalWaiting } from './session-list.js';

const summary = (
  id: string,
  createdAt: number,
  lastSeq: number,
  extra: Partial<SessionSummary> = {},
): SessionSummary => ({
  id,
  title: id,
  kind: 'agent',
  place: 'local',
  cwd: '/w',
  model: 'demo',
  status: 'idle',
  archived: false,
  autoApprove: false,
  createdAt,
  updatedAt: createdAt,
  lastSeq,
  pendingApprovals: 0,
  queued: 0,
  lastLine: '',
  ...extra,
});

describe('session list', () => {
  it('keeps newest first and the newest summary of each session', () => {
    let list = sortSessions([summary('a', 1, 5), summary('b', 2, 3)]);
    expect(list.map((s) => s.id)).toEqual(['b', 'a']);
    list = mergeSummary(list, summary('a', 1, 4, { title: 'older' }));
    expect(list.find((s) => s.id === 'a')!.title).toBe('a');
    list = mergeSummary(list, summary('a', 1, 9, { status: 'waiting', pendingApprovals: 2 }));
    expect(list.find((s) => s.id === 'a')!.status).toBe('waiting');
    list = mergeSummary(list, summary('c', 3, 1));
    expect(list.map((s) => s.id)).toEqual(['c', 'b', 'a']);
    expect(totalWaiting(list)).toBe(2);
  });

  it('drops archived sessions', () => {
    const list = mergeSummary([summary('a', 1, 1)], summary('a', 1, 2, { archived: true }));
    expect(list).toEqual([]);
  });

  it('keeps event summaries newer than a list that crossed them on the wire', () => {
    const list = replaceList([summary('a', 1, 9, { title: 'new' })], [summary('a', 1, 7), summary('b', 2, 1)]);
    expect(list.map((s) => [s.id, s.title])).toEqual([
      ['b', 'b'],
      ['a', 'new'],
    ]);
  });
});
