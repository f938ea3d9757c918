import type { ChannelMessage, TetherEvent } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../store/database.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import type { Outbox } from '../streams/outbox.js';
import { SessionWatch } from './subscriptions.js';

function setup(count: number) {
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
  const log = new EventLog(db, new ManualClock());
  for (let i = 0; i < count; i++) log.append('s', { type: 'notice', level: 'info', text: `n${i}` });
  const sent: TetherEvent[] = [];
  const outbox: Outbox = {
    send: (message: ChannelMessage) => {
      if (message.t === 'evt') sent.push(message.event as TetherEvent);
    },
    buffered: () => 0,
    drained: () => Promise.resolve(),
    closed: false,
    cutOff: () => undefined,
  };
  const label = () =>
    sent.map((e) => ('seq' in e ? e.seq : e.type === 'watch.skipped' ? `skip ${e.after}-${e.to}` : e.type));
  return { log, outbox, sent, label };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('a session watch with a tail', () => {
  it('says what it skips, then replays the newest events and follows live ones, none twice', async () => {
    const { log, outbox, label } = setup(50);
    const watch = new SessionWatch(log, 's', 10, outbox, 5);
    await settle();
    watch.deliver(log.append('s', { type: 'notice', level: 'info', text: 'live' }));
    expect(label()).toEqual(['skip 10-45', 46, 47, 48, 49, 50, 51]);
  });

  it('replays everything, with no skip, when no more than the tail came after', async () => {
    const { log, outbox, label } = setup(8);
    new SessionWatch(log, 's', 3, outbox, 5);
    await settle();
    expect(label()).toEqual([4, 5, 6, 7, 8]);
  });
});
