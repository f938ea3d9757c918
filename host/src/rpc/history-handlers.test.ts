import type { SessionEvent } from '@tether/shared-protocol';
import { MAX_HISTORY_BYTES, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import { historyHandlers, newestWithin } from './history-handlers.js';

function setup(count: number, text = (i: number) => `n${i}`) {
  const db = openDatabase(':memory:');
  const store = new SessionStore(db);
  store.insert({
    id: 's',
    title: 't',
    kind: 'agent',
    place: 'local',
    cwd: '/',
    model: 'demo',
    status: 'idle',
    createdAt: 0,
    updatedAt: 0,
  });
  const log = new EventLog(db, new ManualClock());
  for (let i = 1; i <= count; i++) log.append('s', { type: 'notice', level: 'info', text: text(i) });
  const sessions = {
    get: (id: string) => (id === 's' ? store.summary(store.get('s')!) : undefined),
    setMaxModelCalls: () => ok(store.summary(store.get('s')!)),
    setNotify: () => ok(store.summary(store.get('s')!)),
  };
  return { log, db, handlers: historyHandlers({ sessions, log }) };
}

const seqs = (events: unknown[]) => events.map((e) => (e as SessionEvent).seq);

describe('sessions.history', () => {
  it('pages back from the newest event without gap or overlap, down to the start', () => {
    const { handlers } = setup(1234);
    const seen: number[] = [];
    let before: number | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = handlers['sessions.history']({ id: 's', before, limit: 500 });
      if (!page.ok) throw new Error(page.error.message);
      expect(page.value.lastSeq).toBe(1234);
      const got = seqs(page.value.events);
      // Every seq in (after, before) and nothing else.
      expect(got).toEqual(Array.from({ length: got.length }, (_, i) => page.value.after + 1 + i));
      seen.unshift(...got);
      if (page.value.after === 0) break;
      before = page.value.after + 1;
    }
    expect(seen).toEqual(Array.from({ length: 1234 }, (_, i) => i + 1));
  });

  it('cuts a page to fit a frame, and says where it starts', () => {
    const big = 'x'.repeat(3000);
    const { handlers } = setup(600, () => big);
    const page = handlers['sessions.history']({ id: 's', limit: 600 });
    if (!page.ok) throw new Error(page.error.message);
    expect(JSON.stringify(page.value.events).length).toBeLessThanOrEqual(MAX_HISTORY_BYTES + 1024);
    expect(page.value.events.length).toBeLessThan(600);
    expect(page.value.after).toBe(seqs(page.value.events)[0]! - 1);
    expect(seqs(page.value.events).at(-1)).toBe(600);
  });

  it('answers an empty page before the first event, and not-found for an unknown session', () => {
    const { handlers } = setup(3);
    expect(handlers['sessions.history']({ id: 's', before: 1 })).toEqual({
      ok: true,
      value: { events: [], after: 0, lastSeq: 3 },
    });
    expect(handlers['sessions.history']({ id: 'x' })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('skips a damaged row but still covers it', () => {
    const { handlers, db } = setup(10);
    db.prepare("UPDATE events SET payload = '{' WHERE seq = 5").run();
    const page = handlers['sessions.history']({ id: 's' });
    if (!page.ok) throw new Error(page.error.message);
    expect(seqs(page.value.events)).toEqual([1, 2, 3, 4, 6, 7, 8, 9, 10]);
    expect(page.value.after).toBe(0);
  });

  it('keeps at least one event, however large', () => {
    const events = [{ seq: 1, text: 'x'.repeat(100) }] as unknown as SessionEvent[];
    expect(newestWithin(events, 10)).toHaveLength(1);
  });
});
