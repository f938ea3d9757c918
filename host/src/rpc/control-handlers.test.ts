import type { ControlParams, Result, SessionSummary } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { ControlConnection } from '../control/control-server.js';
import type { MachineDeps } from '../machines/host-machines.js';
import { ApprovalBroker } from '../sessions/approval-broker.js';
import type { SessionManager } from '../sessions/session-manager.js';
import { SessionJournal } from '../sessions/session-journal.js';
import { SessionSteering } from '../sessions/session-steering.js';
import { TypedCommands } from '../sessions/typed-commands.js';
import { SessionGit } from '../git/session-git.js';
import { Worktrees } from '../git/worktrees.js';
import { ApprovalStore } from '../store/approval-store.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import type { TerminalManager } from '../terminals/terminal-manager.js';
import type { ControlDeps } from './control-handlers.js';
import { controlHandlers } from './control-handlers.js';

type CreateInput = Parameters<SessionManager['create']>[0];

/** The parts of the host the control handlers reach, each a fake that records what it was asked. */
function setup() {
  const clock = new ManualClock(5_000);
  const db = openDatabase(':memory:');
  const log = new EventLog(db, clock);
  const store = new SessionStore(db);
  for (const [id, status] of [
    ['s1', 'running'],
    ['s2', 'idle'],
    ['s3', 'waiting'],
  ] as const) {
    store.insert({
      id,
      title: id,
      kind: 'agent',
      place: 'local',
      cwd: '/',
      model: 'demo',
      status,
      createdAt: 0,
      updatedAt: 0,
    });
  }
  const created: CreateInput[] = [];
  const sessions = {
    list: () => store.list(true).map((r) => store.summary(r)),
    get: (id: string) => {
      const record = store.get(id);
      return record && store.summary(record);
    },
    create: (input: CreateInput): Promise<Result<SessionSummary>> => {
      created.push(input);
      return Promise.resolve(ok(store.summary(store.get('s2')!)));
    },
  };
  const devices = new DeviceStore(db);
  devices.insert({ id: 'd1', publicKey: new Uint8Array(32).fill(1), label: 'phone', scopes: ['watch'], createdAt: 0 });
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => 'a1');
  const calls: string[] = [];
  const gateway = {
    pairing: {
      mint: () => calls.push('mint'),
      requests: () => [],
    },
    hub: {
      connectedDevices: () => new Set(['d1']),
      disconnectDevice: (id: string) => {
        calls.push(`disconnect ${id}`);
        return 2;
      },
    },
    stats: { snapshot: () => ({ 'handshake:timeout': 3 }) },
  };
  const ran: ControlParams<'terminals.run'>[] = [];
  const manager = sessions as unknown as SessionManager;
  const journal = new SessionJournal({ sessions: store, log, clock });
  const steering = new SessionSteering({ manager, sessions: store, journal, backends: {}, defaultModel: 'demo' });
  const deps: ControlDeps = {
    facts: { hostId: 'h1', name: 'desk', version: '1.2.3', dataDir: '/data', startedAt: 1_000, defaultModel: 'demo' },
    sessions: sessions as unknown as SessionManager,
    approvals,
    log,
    devices,
    gateway: gateway as unknown as ControlDeps['gateway'],
    reach: () => ({ listening: true, url: 'https://desk.example:8443', mode: 'https', message: 'reachable' }),
    pairLink: () => {
      calls.push('pairLink');
      return ok({ link: 'https://desk.example:8443/#pair', expiresAt: 9_000 });
    },
    agents: { list: () => [] },
    agentSessions: {
      list: () => Promise.resolve(fail('unsupported', 'none')),
      continue: () => Promise.resolve(fail('unsupported', 'none')),
    },
    clock,
    machines: {
      registry: { byName: () => undefined },
      tokens: {},
      hostKey: 'key',
      clock,
    } as unknown as MachineDeps,
    terminals: { list: () => [] } as unknown as TerminalManager,
    run: (params) => {
      ran.push(params);
      return Promise.resolve(fail('conflict', 'a program named x is running already'));
    },
    shares: {
      'share.create': () => fail('unsupported', 'no links here'),
      'share.list': () => ok({ links: [] }),
      'share.revoke': () => fail('not-found', 'no links here'),
    },
    steering,
    commands: new TypedCommands({ manager, steering, sessions: store, journal, clock }),
    git: new SessionGit({ session: () => undefined, contexts: () => undefined, note: () => {} }),
    worktrees: new Worktrees({ session: () => undefined, contexts: () => undefined, note: () => {} }),
  };
  const connection = {} as ControlConnection;
  return { handlers: controlHandlers(deps), created, calls, ran, devices, connection };
}

describe('control handlers', () => {
  it('host.status puts the facts, the sessions at work, the approvals waiting and the reach together', async () => {
    const t = setup();
    const status = await t.handlers['host.status']({}, t.connection);
    expect(status.ok).toBe(true);
    if (!status.ok) return;
    expect(status.value).toMatchObject({
      hostId: 'h1',
      name: 'desk',
      version: '1.2.3',
      dataDir: '/data',
      startedAt: 1_000,
      defaultModel: 'demo',
      pid: process.pid,
      sessions: 3,
      runningSessions: 2,
      pendingApprovals: 0,
      remote: {
        listening: true,
        url: 'https://desk.example:8443',
        connectedDevices: 1,
        refused: { 'handshake:timeout': 3 },
      },
    });
  });

  it('creates a session with a model or an agent, never both, and only on a known machine', async () => {
    const t = setup();
    const create = t.handlers['sessions.create'];
    const both = await create({ cwd: '/p', text: 'hi', model: 'demo', agent: 'claude' }, t.connection);
    expect(both.ok === false && both.error.code).toBe('invalid-params');
    const nowhere = await create({ cwd: '/p', text: 'hi', machine: 'laptop' }, t.connection);
    expect(nowhere.ok === false && nowhere.error.code).toBe('not-found');
    expect(t.created).toEqual([]);

    expect((await create({ cwd: '/p', text: 'go', agent: 'claude' }, t.connection)).ok).toBe(true);
    expect((await create({ cwd: '/p', text: 'hi', machine: 'local' }, t.connection)).ok).toBe(true);
    expect(t.created.map((input) => ({ ...input, prepare: undefined }))).toEqual([
      { cwd: '/p', text: 'go', kind: 'acp', model: 'claude' },
      { cwd: '/p', text: 'hi' },
    ]);
  });

  it('a session that is not there is not-found', async () => {
    const t = setup();
    const got = await t.handlers['sessions.get']({ id: 'nope' }, t.connection);
    expect(got.ok === false && got.error.code).toBe('not-found');
    const events = await t.handlers['sessions.events']({ id: 'nope', after: 0 }, t.connection);
    expect(events.ok === false && events.error.code).toBe('not-found');
  });

  it('pair.create makes a fresh link before it is read', async () => {
    const t = setup();
    expect(await t.handlers['pair.create']({}, t.connection)).toEqual(
      ok({ link: 'https://desk.example:8443/#pair', expiresAt: 9_000 }),
    );
    expect(t.calls).toEqual(['mint', 'pairLink']);
  });

  it('revoking a device closes its connections and says how many; an unknown one is not-found', async () => {
    const t = setup();
    expect(await t.handlers['devices.revoke']({ id: 'd1' }, t.connection)).toEqual(ok({ closedConnections: 2 }));
    expect(t.devices.get('d1')?.revoked).toBe(true);
    const unknown = await t.handlers['devices.revoke']({ id: 'd9' }, t.connection);
    expect(unknown.ok === false && unknown.error.code).toBe('not-found');
    expect(t.calls).toEqual(['disconnect d1']);
  });

  it('terminals.run hands the program to the wrapped programs, and their answer back', async () => {
    const t = setup();
    const params = { command: ['vim'], cwd: '/p', cols: 80, rows: 24 };
    const ran = await t.handlers['terminals.run'](params, t.connection);
    expect(ran.ok === false && ran.error.code).toBe('conflict');
    expect(t.ran).toEqual([params]);
  });
});
