import type { Approval, ClientState, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { HostApprovals, MAX_LOOKUPS } from './host-approvals.js';

const approval = (id: string, status: Approval['status'] = 'pending'): Approval => ({
  id,
  sessionId: 's_1',
  toolCallId: 't_1',
  tool: 'shell',
  kind: 'shell',
  action: 'ls -la',
  cwd: '/w',
  place: 'local',
  createdAt: 1,
  status,
  ...(status !== 'pending' ? { answeredBy: { kind: 'device', id: 'd_2', label: 'Tablet' } } : {}),
});

const settle = async () => {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setTimeout(resolve, 0));
};

/** A client whose host keeps `approvals` and answers approvals.get, .list and .answer from it. */
function setUp(options: { olderHost?: boolean } = {}) {
  const approvals = new Map<string, Approval>();
  const calls: string[] = [];
  const client = {
    state: { name: 'idle' } as ClientState,
    call: (method: string, params: { id?: string; decision?: string }): Promise<Result<unknown>> => {
      calls.push(method);
      const found = params.id !== undefined ? approvals.get(params.id) : undefined;
      switch (method) {
        case 'approvals.get':
          if (options.olderHost) return Promise.resolve(fail('unknown-method', method));
          return Promise.resolve(found ? ok({ approval: found, sessionTitle: 'Tidy up' }) : fail('not-found', 'no'));
        case 'approvals.list':
          return Promise.resolve(ok({ approvals: [...approvals.values()].filter((a) => a.status === 'pending') }));
        case 'approvals.answer':
          if (found?.status !== 'pending') return Promise.resolve(fail('already-resolved', 'answered'));
          approvals.set(found.id, { ...found, status: params.decision === 'deny' ? 'denied' : 'allowed' });
          return Promise.resolve(ok({ approval: approvals.get(found.id) }));
        default:
          return Promise.resolve(fail('unknown-method', method));
      }
    },
  };
  const clock = new ManualClock();
  const state = new HostApprovals(client as unknown as ConstructorParameters<typeof HostApprovals>[0], clock);
  const open = () => {
    client.state = { name: 'open' };
    state.opened();
  };
  return { approvals, calls, client, clock, state, open };
}

describe('a host’s approvals', () => {
  it('asks for a looked-up approval as soon as the connection opens, and says whether it still waits', async () => {
    const s = setUp();
    s.approvals.set('a_1', approval('a_1'));
    const lookup = s.state.lookup('a_1');
    expect(lookup.get()).toEqual({ state: 'loading' });
    expect(s.calls).toEqual([]);
    s.open();
    expect(s.calls).toEqual(['approvals.get']);
    await settle();
    expect(lookup.get()).toEqual({ state: 'found', approval: approval('a_1'), sessionTitle: 'Tidy up' });
    const missing = s.state.lookup('nope');
    await settle();
    expect(missing.get()).toEqual({ state: 'missing' });
  });

  it('says at once when the approval was answered elsewhere: one that leaves the waiting list is asked for again', async () => {
    const s = setUp();
    s.approvals.set('a_1', approval('a_1'));
    s.open();
    const lookup = s.state.lookup('a_1');
    await settle();
    s.approvals.set('a_1', approval('a_1', 'denied'));
    s.state.scheduleRefresh();
    s.clock.advance(1000);
    await settle();
    expect(lookup.get()).toMatchObject({
      state: 'found',
      approval: { status: 'denied', answeredBy: { label: 'Tablet' } },
      sessionTitle: 'Tidy up',
    });
    expect(await s.state.answer('a_1', 'allow-once')).toMatchObject({ ok: false, error: { code: 'already-resolved' } });
  });

  it('answers through the connection only, and shows its own answer on the card', async () => {
    const s = setUp();
    s.approvals.set('a_1', approval('a_1'));
    expect(await s.state.answer('a_1', 'deny')).toMatchObject({ ok: false, error: { code: 'disconnected' } });
    s.open();
    const lookup = s.state.lookup('a_1');
    await settle();
    expect(await s.state.answer('a_1', 'allow-once')).toMatchObject({ ok: true, value: { status: 'allowed' } });
    expect(lookup.get()).toMatchObject({ state: 'found', approval: { status: 'allowed' }, sessionTitle: 'Tidy up' });
    expect(s.state.pending.get()).toEqual([]);
  });

  it('asks an older host, which has no approvals.get, through its waiting list', async () => {
    const s = setUp({ olderHost: true });
    s.approvals.set('a_1', approval('a_1'));
    s.open();
    const waiting = s.state.lookup('a_1');
    const gone = s.state.lookup('a_2');
    await settle();
    expect(waiting.get()).toEqual({ state: 'found', approval: approval('a_1') });
    expect(gone.get()).toEqual({ state: 'missing' });
  });

  it('keeps at most MAX_LOOKUPS, dropping the one asked for longest ago', () => {
    const s = setUp();
    const first = s.state.lookup('a_0');
    for (let i = 1; i <= MAX_LOOKUPS; i++) s.state.lookup(`a_${i}`);
    expect(s.state.lookup('a_0')).not.toBe(first);
  });
});
