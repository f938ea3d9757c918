import type { AgentInfo, Result, Scope, SessionKind, SessionSummary } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { LocalContext } from '@tether/machine';
import { TEST_GIT_ENV } from '../git/git-test-repo.js';
import { Worktrees } from '../git/worktrees.js';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../sessions/approval-broker.js';
import type { SessionManager } from '../sessions/session-manager.js';
import { ApprovalStore } from '../store/approval-store.js';
import { openDatabase } from '../store/database.js';
import { DeviceStore } from '../store/device-store.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import type { Caller } from './caller.js';
import { deviceHandlers } from './device-handlers.js';

type CreateInput = Parameters<SessionManager['create']>[0];

/**
 * The session manager as the handlers see it, over a real store: records what it is asked to
 * create, send and interrupt, and answers as the manager would.
 */
class FakeSessions {
  readonly created: CreateInput[] = [];
  readonly sent: { id: string; text: string }[] = [];
  readonly interrupted: string[] = [];

  constructor(private readonly store: SessionStore) {}

  add(id: string, kind: SessionKind): void {
    this.store.insert({
      id,
      title: id,
      kind,
      place: 'local',
      cwd: '/',
      model: 'demo',
      status: 'running',
      createdAt: 0,
      updatedAt: 0,
    });
  }
  list(): SessionSummary[] {
    return this.store.list(true).map((r) => this.store.summary(r));
  }
  get(id: string): SessionSummary | undefined {
    const record = this.store.get(id);
    return record && this.store.summary(record);
  }
  create(input: CreateInput): Promise<Result<SessionSummary>> {
    this.created.push(input);
    this.add(`s${this.created.length}`, input.kind ?? 'agent');
    return Promise.resolve(ok(this.get(`s${this.created.length}`)!));
  }
  send(id: string, text: string): Result<{ queued: boolean }> {
    this.sent.push({ id, text });
    return ok({ queued: false });
  }
  interrupt(id: string): Result<Record<string, never>> {
    this.interrupted.push(id);
    return ok({});
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(relays?: string[], agents?: AgentInfo[], worktrees?: (sessions: FakeSessions) => Worktrees) {
  const clock = new ManualClock(1_000);
  const db = openDatabase(':memory:');
  const log = new EventLog(db, clock);
  const store = new SessionStore(db);
  const sessions = new FakeSessions(store);
  const devices = new DeviceStore(db);
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => 'a1');
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-handlers-')));
  dirs.push(root);
  mkdirSync(join(root, 'project'));
  const disconnected: string[] = [];
  const handlers = deviceHandlers({
    hostId: 'h1',
    hostName: 'desk',
    version: '1.2.3',
    sessions: sessions as unknown as SessionManager,
    approvals,
    devices,
    log,
    disconnectDevice: (id) => {
      disconnected.push(id);
      return 1;
    },
    roots: [root],
    models: ['demo', 'anthropic:claude'],
    features: () => ['terminals'],
    relays: () => relays,
    clock,
    ...(agents ? { agents: { list: () => agents } } : {}),
    keepAwake: () => ({ state: 'unavailable', tool: 'systemd-inhibit', since: 5, message: 'Failed to connect to bus' }),
    ...(worktrees ? { worktrees: worktrees(sessions) } : {}),
  });
  let n = 0;
  const device = (scopes: Scope[]): Caller => ({
    device: devices.insert({
      id: `d${++n}`,
      publicKey: new Uint8Array(32).fill(n),
      label: `phone ${n}`,
      scopes,
      createdAt: 0,
    }),
  });
  return { clock, sessions, devices, handlers, root, disconnected, device };
}

describe('device handlers', () => {
  it('host.info says who the host is, to this device, with its models and default', async () => {
    const t = setup();
    const caller = t.device(['watch']);
    const info = await t.handlers['host.info']!({}, caller);
    expect(info).toEqual(
      ok(
        expect.objectContaining({
          hostId: 'h1',
          name: 'desk',
          version: '1.2.3',
          deviceId: caller.device.id,
          scopes: ['watch'],
          features: ['terminals'],
          models: ['demo', 'anthropic:claude'],
          defaultModel: 'demo',
          roots: [t.root],
          agents: [],
          keepAwake: { state: 'unavailable', tool: 'systemd-inhibit', since: 5, message: 'Failed to connect to bus' },
        }),
      ),
    );
  });

  it('host.info lists every configured agent, one that cannot start with why and how to set it up', async () => {
    const agents: AgentInfo[] = [
      { name: 'codex', title: 'Codex', command: 'codex-acp', available: true },
      {
        name: 'claude-code',
        title: 'Claude Code',
        command: 'claude-code-acp',
        available: false,
        reason: 'claude-code-acp was not found on PATH',
        setup: 'npm install -g @zed-industries/claude-code-acp',
      },
    ];
    const t = setup(undefined, agents);
    const info = await t.handlers['host.info']!({}, t.device(['watch']));
    expect(info.ok && info.value.agents).toEqual(agents);
  });

  it('host.info names the relays the host keeps, on every connect, and nothing when it has none', async () => {
    const none = await setup().handlers['host.info']!({}, setup().device(['watch']));
    expect(none.ok && 'relays' in none.value).toBe(false);
    const t = setup(['https://a.example', 'https://b.example']);
    const info = await t.handlers['host.info']!({}, t.device(['watch']));
    expect(info.ok && info.value.relays).toEqual(['https://a.example', 'https://b.example']);
  });

  it('a message or interrupt to a wrapped program takes the terminal scope; other sessions do not', async () => {
    const t = setup();
    t.sessions.add('term', 'terminal');
    t.sessions.add('chat', 'agent');
    const chatOnly = t.device(['watch', 'chat']);
    const withTerminal = t.device(['watch', 'chat', 'terminal']);

    const refused = await t.handlers['sessions.send']!({ id: 'term', text: 'rm -rf ~' }, chatOnly);
    expect(refused.ok === false && refused.error.code).toBe('forbidden');
    const stopRefused = await t.handlers['sessions.interrupt']!({ id: 'term' }, chatOnly);
    expect(stopRefused.ok === false && stopRefused.error.code).toBe('forbidden');
    expect(t.sessions.sent).toEqual([]);
    expect(t.sessions.interrupted).toEqual([]);

    expect((await t.handlers['sessions.send']!({ id: 'chat', text: 'hello' }, chatOnly)).ok).toBe(true);
    expect((await t.handlers['sessions.send']!({ id: 'term', text: 'ls' }, withTerminal)).ok).toBe(true);
    expect((await t.handlers['sessions.interrupt']!({ id: 'term' }, withTerminal)).ok).toBe(true);
    expect(t.sessions.sent).toEqual([
      { id: 'chat', text: 'hello' },
      { id: 'term', text: 'ls' },
    ]);
    expect(t.sessions.interrupted).toEqual(['term']);
  });

  it('creates a session only in a shared folder, with an offered model or an agent, never both', async () => {
    const t = setup();
    const caller = t.device(['watch', 'chat']);
    const create = t.handlers['sessions.create']!;
    const outside = await create({ cwd: tmpdir(), text: 'hi' }, caller);
    expect(outside.ok === false && outside.error.code).toBe('forbidden');
    const unoffered = await create({ cwd: join(t.root, 'project'), text: 'hi', model: 'openai:gpt' }, caller);
    expect(unoffered.ok === false && unoffered.error.code).toBe('invalid-params');
    const both = await create({ cwd: join(t.root, 'project'), text: 'hi', model: 'demo', agent: 'claude' }, caller);
    expect(both.ok === false && both.error.code).toBe('invalid-params');
    expect(t.sessions.created).toEqual([]);

    expect((await create({ cwd: join(t.root, 'project'), text: 'hi', model: 'anthropic:claude' }, caller)).ok).toBe(
      true,
    );
    expect((await create({ cwd: join(t.root, 'project'), text: 'go', agent: 'claude' }, caller)).ok).toBe(true);
    expect(t.sessions.created).toEqual([
      { cwd: join(t.root, 'project'), text: 'hi', model: 'anthropic:claude' },
      { cwd: join(t.root, 'project'), text: 'go', kind: 'acp', model: 'claude' },
    ]);
  });

  it('makes a worktree only where a device may start a session, and leaves none behind when it may not', async () => {
    const context = new LocalContext({ env: TEST_GIT_ENV });
    const t = setup(
      undefined,
      undefined,
      (sessions) => new Worktrees({ session: (id) => sessions.get(id), contexts: () => context, note: () => {} }),
    );
    const caller = t.device(['watch', 'chat']);
    const create = t.handlers['sessions.create']!;
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', args, { cwd, env: TEST_GIT_ENV, encoding: 'utf8' });
    // The root is the repository: its worktree would lie beside it, outside what devices may use.
    git(t.root, 'init', '--quiet');
    git(t.root, 'commit', '--quiet', '--allow-empty', '-m', 'start');
    const outside = await create({ cwd: t.root, text: 'hi', worktree: true }, caller);
    expect(outside.ok === false && outside.error.code).toBe('forbidden');
    expect(git(t.root, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(git(t.root, 'branch', '--list', 'tether/*')).toBe('');
    expect(t.sessions.created).toEqual([]);
    try {
      rmdirSync(join(dirname(t.root), '.tether-worktrees'));
    } catch {
      // Another test's worktree is still there: not ours to remove.
    }
    // A repository under the root: its worktree is under the root too.
    const project = join(t.root, 'project');
    git(project, 'init', '--quiet');
    git(project, 'commit', '--quiet', '--allow-empty', '-m', 'start');
    const inside = await create({ cwd: project, text: 'hi', worktree: true }, caller);
    expect(inside.ok).toBe(true);
    expect(t.sessions.created[0]?.cwd).toMatch(new RegExp(`^${t.root}/\\.tether-worktrees/project-[0-9a-f]{8}$`));
  });

  it('watching needs a live connection, not a one-shot call', async () => {
    const t = setup();
    t.sessions.add('chat', 'agent');
    const watched = await t.handlers['sessions.watch']!({ id: 'chat', after: 0 }, t.device(['watch']));
    expect(watched.ok === false && watched.error.code).toBe('unsupported');
  });

  it('a device revokes itself; another only with admin; connections close after the answer', async () => {
    const t = setup();
    const phone = t.device(['watch']);
    const tablet = t.device(['watch']);
    const admin = t.device(['watch', 'admin']);

    const refused = await t.handlers['devices.revoke']!({ id: tablet.device.id }, phone);
    expect(refused.ok === false && refused.error.code).toBe('forbidden');
    expect(t.devices.get(tablet.device.id)?.revoked).toBe(false);

    expect((await t.handlers['devices.revoke']!({ id: phone.device.id }, phone)).ok).toBe(true);
    expect((await t.handlers['devices.revoke']!({ id: tablet.device.id }, admin)).ok).toBe(true);
    expect(t.devices.get(phone.device.id)?.revoked).toBe(true);
    expect(t.devices.get(tablet.device.id)?.revoked).toBe(true);
    // The answer goes out first: the connections close on the next tick.
    expect(t.disconnected).toEqual([]);
    t.clock.advance(0);
    expect(t.disconnected).toEqual([phone.device.id, tablet.device.id]);

    const listed = await t.handlers['devices.list']!({}, admin);
    expect(listed.ok && listed.value.devices.every((d) => !('publicKey' in d))).toBe(true);
  });
});
