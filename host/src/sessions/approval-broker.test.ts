import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { ApprovalStore } from '../store/approval-store.js';
import { openDatabase } from '../store/database.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import { ApprovalBroker } from './approval-broker.js';

function setup() {
  const clock = new ManualClock();
  const db = openDatabase(':memory:');
  new SessionStore(db).insert({
    id: 's1',
    title: 't',
    kind: 'agent',
    place: 'local',
    cwd: '/',
    model: 'demo',
    status: 'running',
    createdAt: 0,
    updatedAt: 0,
  });
  const log = new EventLog(db, clock);
  let ids = 0;
  const broker = new ApprovalBroker(new ApprovalStore(db), log, clock, () => `a${++ids}`);
  const raise = (signal = new AbortController().signal, validate?: (a: { prefix?: string }) => string | undefined) =>
    broker.request(
      {
        sessionId: 's1',
        toolCallId: 'c1',
        tool: 'shell',
        need: { kind: 'shell', action: 'rm -rf build && make', command: 'rm -rf build && make' },
        cwd: '/',
        place: 'local',
      },
      signal,
      validate,
    );
  return { clock, log, broker, raise };
}

const phone = { kind: 'device' as const, id: 'AAAAAAAAAAAAAAAAAAAAAA', label: 'phone' };
const local = { kind: 'local' as const, label: 'this computer' };

describe('the approval broker', () => {
  it('records the request before it returns, and the first answer wins', async () => {
    const t = setup();
    const { approval, outcome } = t.raise();
    expect([...t.log.readAll('s1')].map((e) => e.type)).toEqual(['approval.requested']);
    expect(t.broker.pending().map((a) => a.id)).toEqual([approval.id]);
    const first = t.broker.answer(approval.id, { decision: 'allow-once' }, phone);
    const second = t.broker.answer(approval.id, { decision: 'deny' }, local);
    expect(first.ok).toBe(true);
    expect(second).toMatchObject({ ok: false, error: { code: 'already-resolved' } });
    expect(!second.ok && second.error.message).toContain('by phone');
    expect(await outcome).toMatchObject({ status: 'allowed', decision: 'allow-once' });
    expect(t.broker.pending()).toEqual([]);
  });

  it('cancels a pending approval when the run is interrupted, and takes no answer after', async () => {
    const t = setup();
    const controller = new AbortController();
    const { approval, outcome } = t.raise(controller.signal);
    controller.abort();
    expect(await outcome).toMatchObject({ status: 'cancelled' });
    expect(t.broker.answer(approval.id, { decision: 'allow-once' }, phone)).toMatchObject({
      error: { code: 'already-resolved' },
    });
  });

  it('refuses an answer its validator rejects, and keeps the approval pending', () => {
    const t = setup();
    const { approval } = t.raise(undefined, (a) => (a.prefix === 'rm' ? 'too broad' : undefined));
    expect(t.broker.answer(approval.id, { decision: 'allow-session', prefix: 'rm' }, phone)).toMatchObject({
      error: { code: 'invalid-params', message: 'too broad' },
    });
    expect(t.broker.answer(approval.id, { decision: 'allow-once', prefix: 'rm -rf' }, phone)).toMatchObject({
      error: { code: 'invalid-params' },
    });
    expect(t.broker.pending()).toHaveLength(1);
  });

  it('says not-found for an approval it never raised', () => {
    expect(setup().broker.answer('nope', { decision: 'deny' }, local)).toMatchObject({ error: { code: 'not-found' } });
  });

  it('cancels orphans left by a restart, saying who', () => {
    const t = setup();
    const { approval } = t.raise();
    t.broker.cancelOrphans('s1');
    expect(t.broker.pending()).toEqual([]);
    const resolved = [...t.log.readAll('s1')].find((e) => e.type === 'approval.resolved');
    expect(resolved).toMatchObject({
      approval: { id: approval.id, status: 'cancelled', answeredBy: { label: 'host restarted' } },
    });
  });
});
