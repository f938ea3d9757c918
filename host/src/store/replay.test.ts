import type { SessionEvent } from '@tether/shared-protocol';
import { systemClock } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { openDatabase } from './database.js';
import { EventLog } from './event-log.js';
import { REPLAY_PAGE, replayThenFollow } from './replay.js';
import { SessionStore } from './session-store.js';

function setup(events: number) {
  const db = openDatabase(':memory:');
  new SessionStore(db).insert({
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
  const log = new EventLog(db, systemClock);
  for (let i = 0; i < events; i++) log.append('s', { type: 'notice', level: 'info', text: `n${i}` });
  return { db, log };
}

describe('replayThenFollow', () => {
  it('replays every page, waits when the reader is full, and follows with no gap', async () => {
    const { log } = setup(REPLAY_PAGE * 2 + 10);
    const seen: number[] = [];
    let waits = 0;
    let following = false;
    const done = replayThenFollow(
      log,
      's',
      5,
      (e) => {
        seen.push(e.seq);
        return seen.length % 100 !== 0;
      },
      () => (following = true),
      async () => {
        waits++;
        // Something is appended while the replay waits: it must come through the replay.
        if (waits === 1) log.append('s', { type: 'notice', level: 'info', text: 'during' });
        await Promise.resolve();
      },
    );
    expect(await done).toBe(true);
    expect(following).toBe(true);
    expect(waits).toBeGreaterThan(5);
    expect(seen).toEqual(Array.from({ length: log.lastSeq('s') - 5 }, (_, i) => i + 6));
  });

  it('skips a damaged row instead of reading it forever', async () => {
    const { db, log } = setup(10);
    db.prepare("UPDATE events SET payload = '{' WHERE seq IN (3, 10)").run();
    const seen: SessionEvent[] = [];
    expect(
      await replayThenFollow(
        log,
        's',
        0,
        (e) => seen.push(e) > 0,
        () => undefined,
        () => Promise.resolve(),
      ),
    ).toBe(true);
    expect(seen.map((e) => e.seq)).toEqual([1, 2, 4, 5, 6, 7, 8, 9]);
    expect(log.corruptRows).toBe(2);
  });

  it('stops when the reader goes away', async () => {
    const { log } = setup(REPLAY_PAGE + 1);
    let wanted = true;
    const result = replayThenFollow(
      log,
      's',
      0,
      () => false,
      () => undefined,
      () => {
        wanted = false;
        return Promise.resolve();
      },
      () => wanted,
    );
    expect(await result).toBe(false);
  });
});

describe('the event log', () => {
  it('stores an event even when a listener throws, and counts the failure by its name', () => {
    const { log } = setup(0);
    const seen: number[] = [];
    log.subscribe('broken', () => {
      throw new Error('a bug in a listener');
    });
    log.subscribe('fine', (event) => seen.push(event.seq));
    const event = log.append('s', { type: 'notice', level: 'info', text: 'still stored' });
    expect(event.seq).toBe(1);
    expect(seen).toEqual([1]);
    expect(log.listenerFailures.get('broken')).toBe(1);
    expect(log.read('s', 0)).toHaveLength(1);
  });

  it('skips a stored row that does not decode as the event it claims to be', () => {
    const { db, log } = setup(2);
    db.prepare('UPDATE events SET payload = ? WHERE seq = 1').run(JSON.stringify({ level: 'loud', text: 3 }));
    expect(log.read('s', 0).map((e) => e.seq)).toEqual([2]);
    expect(log.corruptRows).toBe(1);
  });
});
