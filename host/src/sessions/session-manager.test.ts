import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { LocalContext } from '@tether/machine';
import { ApprovalStore } from '../store/approval-store.js';
import { openDatabase } from '../store/database.js';
import { EventLog } from '../store/event-log.js';
import { MAX_RECEIPTS, SessionStore } from '../store/session-store.js';
import { ApprovalBroker } from './approval-broker.js';
import type { LiveSessions, RunContext, RunResult, SessionBackend } from './session-backend.js';
import { SessionManager } from './session-manager.js';

const DONE: RunResult = { status: 'done', usage: { inputTokens: 0, outputTokens: 0 } };

/** A back-end the test scripts: each run calls the next step, or finishes at once. */
class ScriptedBackend implements SessionBackend {
  readonly runs: RunContext[] = [];
  steps: ((run: RunContext) => Promise<RunResult>)[] = [];
  checkResult: Result<void> = ok(undefined);

  check(): Result<void> {
    return this.checkResult;
  }

  run(run: RunContext): Promise<RunResult> {
    this.runs.push(run);
    const step = this.steps.shift();
    return step ? step(run) : Promise.resolve(DONE);
  }
}

function setup(options: { contexts?: (place: string) => LocalContext | undefined } = {}) {
  const clock = new ManualClock();
  const db = openDatabase(':memory:');
  const log = new EventLog(db, clock);
  const sessions = new SessionStore(db);
  let ids = 0;
  const approvals = new ApprovalBroker(new ApprovalStore(db), log, clock, () => `a${++ids}`);
  const backend = new ScriptedBackend();
  const local = new LocalContext();
  const manager = new SessionManager({
    sessions,
    log,
    approvals,
    backends: { agent: backend },
    contexts: options.contexts ?? ((place) => (place === 'local' ? local : undefined)),
    clock,
    newId: (prefix) => `${prefix}${++ids}`,
    defaultModel: 'demo',
  });
  const cwd = mkdtempSync(`${tmpdir()}/tether-sm-`);
  const types = (id: string) => [...log.readAll(id)].map((e) => e.type);
  return { clock, log, sessions, approvals, backend, manager, cwd, types };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('the session manager', () => {
  it('runs a new session through its back-end and goes idle when the run ends', async () => {
    const t = setup();
    const created = await t.manager.create({ cwd: t.cwd, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    await settle();
    expect(t.backend.runs).toHaveLength(1);
    expect(t.manager.get(created.value.id)?.status).toBe('idle');
    expect(t.types(created.value.id)).toEqual(['message', 'session.updated', 'run.finished', 'session.updated']);
  });

  it('refuses a session its back-end cannot run, before storing it', async () => {
    const t = setup();
    t.backend.checkResult = fail('invalid-params', 'no such model');
    expect(await t.manager.create({ cwd: t.cwd, text: 'hello', model: 'nope' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-params' },
    });
    expect(await t.manager.create({ cwd: t.cwd, text: 'hello', kind: 'acp' })).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
    expect(t.manager.list()).toEqual([]);
  });

  it('never wedges a session whose run fails before its first await', async () => {
    const t = setup();
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await settle();
    // The model's key disappeared across a restart: the back-end fails at once, synchronously.
    t.backend.steps.push(() => {
      throw new Error('ANTHROPIC_API_KEY is not set');
    });
    expect(t.manager.send(id, 'second')).toEqual(ok({ queued: false }));
    await settle();
    expect(t.manager.get(id)?.status).toBe('error');
    expect(t.manager.isRunning(id)).toBe(false);
    // The next message starts a run instead of waiting in a queue forever.
    expect(t.manager.send(id, 'third')).toEqual(ok({ queued: false }));
    await settle();
    expect(t.backend.runs).toHaveLength(3);
    expect(t.manager.get(id)?.status).toBe('idle');
  });

  it('fails a run whose machine is not known, and runs again once a message comes', async () => {
    let known = true;
    const local = new LocalContext();
    const t = setup({ contexts: () => (known ? local : undefined) });
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    await settle();
    known = false;
    t.manager.send(created.value.id, 'second');
    await settle();
    expect(t.manager.get(created.value.id)?.status).toBe('error');
    known = true;
    expect(t.manager.send(created.value.id, 'third')).toEqual(ok({ queued: false }));
  });

  it('queues messages while a run is busy and hands them to it, each once', async () => {
    const t = setup();
    let release!: () => void;
    const taken: string[][] = [];
    t.backend.steps.push(async (run) => {
      await new Promise<void>((resolve) => (release = resolve));
      taken.push(run.takeQueued().map((m) => m.text));
      return DONE;
    });
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    expect(t.manager.send(created.value.id, 'second')).toEqual(ok({ queued: true }));
    expect(t.manager.get(created.value.id)?.queued).toBe(1);
    release();
    await settle();
    expect(taken).toEqual([['second']]);
    expect(t.backend.runs).toHaveLength(1);
  });

  it('takes a message resent with the same client id once, across a restart, and answers as the first time', async () => {
    const t = setup();
    let release!: () => void;
    t.backend.steps.push(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return DONE;
    });
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    expect(t.manager.send(id, 'second', 'phone-msg-0001')).toEqual(ok({ queued: true }));
    // The connection dropped before the answer: the outbox sends it again, twice.
    expect(t.manager.send(id, 'second', 'phone-msg-0001')).toEqual(ok({ queued: true, duplicate: true }));
    expect(t.manager.get(id)?.queued).toBe(1);
    release();
    await settle();
    expect(t.backend.runs).toHaveLength(2);
    // A new manager over the same database (a restart) still knows the id.
    const after = new SessionManager({
      sessions: t.sessions,
      log: t.log,
      approvals: t.approvals,
      backends: { agent: t.backend },
      contexts: () => new LocalContext(),
      clock: t.clock,
      newId: () => 'r-after',
      defaultModel: 'demo',
    });
    expect(after.send(id, 'second', 'phone-msg-0001')).toEqual(ok({ queued: true, duplicate: true }));
    // Another id is another message, even with the same text.
    expect(after.send(id, 'second', 'phone-msg-0002')).toEqual(ok({ queued: false }));
    await settle();
    expect(t.backend.runs).toHaveLength(3);
    const messages = [...t.log.readAll(id)].filter((e) => e.type === 'message').length;
    expect(messages).toBe(3);
  });

  it('keeps a refused send out of the receipts, so the same id may be sent again', () => {
    const t = setup();
    expect(t.manager.send('missing', 'hi', 'phone-msg-0003').ok).toBe(false);
    expect(t.sessions.receipt('missing', 'phone-msg-0003')).toBeUndefined();
  });

  it('keeps at most MAX_RECEIPTS ids per session, the newest', () => {
    const t = setup();
    for (let i = 0; i < MAX_RECEIPTS + 5; i++)
      t.sessions.keepReceipt('s', `id-${String(i).padStart(6, '0')}`, false, i);
    expect(t.sessions.receipt('s', 'id-000000')).toBeUndefined();
    expect(t.sessions.receipt('s', 'id-000004')).toBeUndefined();
    expect(t.sessions.receipt('s', 'id-000005')).toEqual({ queued: false });
    expect(t.sessions.receipt('s', `id-${String(MAX_RECEIPTS + 4).padStart(6, '0')}`)).toEqual({ queued: false });
  });

  it('interrupts a run and records how it ended', async () => {
    const t = setup();
    t.backend.steps.push(
      (run) =>
        new Promise((resolve) =>
          run.signal.addEventListener('abort', () => resolve({ ...DONE, status: 'interrupted' })),
        ),
    );
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    t.manager.interrupt(created.value.id);
    await settle();
    expect(t.manager.get(created.value.id)?.status).toBe('interrupted');
  });

  it('marks runs that were in flight at a crash as interrupted, cancelling their approvals', async () => {
    const t = setup();
    t.backend.steps.push(async (run) => {
      await run.gate.ask(
        { toolCallId: 'c1', tool: 'shell', need: { kind: 'shell', action: 'ls', command: 'ls' }, place: 'local' },
        run.signal,
      );
      return DONE;
    });
    const created = await t.manager.create({ cwd: t.cwd, text: 'first' });
    if (!created.ok) throw new Error(created.error.message);
    await settle();
    expect(t.manager.get(created.value.id)?.status).toBe('waiting');
    // A new manager over the same store is what a restart looks like.
    const after = new SessionManager({
      sessions: t.sessions,
      log: t.log,
      approvals: t.approvals,
      backends: {},
      contexts: () => undefined,
      clock: t.clock,
      newId: () => 'r-after',
      defaultModel: 'demo',
    });
    expect(after.recover()).toBe(1);
    expect(after.get(created.value.id)?.status).toBe('interrupted');
    expect(t.approvals.pending()).toEqual([]);
  });

  it('shuts down within its deadline even when a back-end ignores the interrupt', async () => {
    const t = setup();
    t.backend.steps.push(() => new Promise(() => undefined));
    await t.manager.create({ cwd: t.cwd, text: 'first' });
    let finished = false;
    const shutdown = t.manager.shutdown(5000).then(() => (finished = true));
    await settle();
    expect(finished).toBe(false);
    t.clock.advance(5000);
    await shutdown;
    expect(finished).toBe(true);
  });

  it('hands a live back-end its messages and stops, with no run, and says what a restart did to it', async () => {
    const t = setup();
    const heard: string[] = [];
    const live: LiveSessions = {
      send: (id, text) => {
        heard.push(`${id}: ${text}`);
        return ok({ queued: false });
      },
      interrupt: (id) => {
        heard.push(`${id}: stop`);
        return ok({});
      },
      lostWithHost: (record) => `${record.title} ended with the host.`,
    };
    const program: SessionBackend = {
      check: () => fail('unsupported', 'started elsewhere'),
      run: () => Promise.reject(new Error('a live session has no runs')),
      live,
    };
    t.sessions.insert({
      id: 'p1',
      title: 'vim',
      kind: 'terminal',
      place: 'local',
      cwd: t.cwd,
      model: 'vim',
      agent: 'vim',
      status: 'running',
      createdAt: 0,
      updatedAt: 0,
    });
    const manager = new SessionManager({
      sessions: t.sessions,
      log: t.log,
      approvals: t.approvals,
      backends: { agent: t.backend, terminal: program },
      contexts: (place) => (place === 'local' ? new LocalContext() : undefined),
      clock: t.clock,
      newId: () => 'r1',
      defaultModel: 'demo',
    });
    expect(manager.send('p1', ':wq')).toEqual(ok({ queued: false }));
    expect(manager.interrupt('p1')).toEqual(ok({}));
    expect(heard).toEqual(['p1: :wq', 'p1: stop']);
    expect(manager.isRunning('p1')).toBe(false);
    expect(t.types('p1')).toEqual([]);
    const refused = await manager.create({ cwd: t.cwd, kind: 'terminal' });
    expect(!refused.ok && refused.error.code).toBe('unsupported');

    expect(manager.recover()).toBe(1);
    const events = [...t.log.readAll('p1')];
    expect(events.map((e) => e.type)).toEqual(['notice', 'session.updated']);
    expect(events[0]).toMatchObject({ level: 'warning', text: 'vim ended with the host.' });
    expect(manager.get('p1')?.status).toBe('interrupted');
  });

  it("stores the agent a back-end names for the session's model", async () => {
    const t = setup();
    const agentBackend: SessionBackend = {
      check: () => ok(undefined),
      run: (run) => t.backend.run(run),
      agent: (model) => model,
    };
    const manager = new SessionManager({
      sessions: t.sessions,
      log: t.log,
      approvals: t.approvals,
      backends: { agent: t.backend, acp: agentBackend },
      contexts: (place) => (place === 'local' ? new LocalContext() : undefined),
      clock: t.clock,
      newId: (prefix) => `${prefix}-${Math.random()}`,
      defaultModel: 'demo',
    });
    const acp = await manager.create({ cwd: t.cwd, text: 'hi', kind: 'acp', model: 'claude' });
    const own = await manager.create({ cwd: t.cwd, text: 'hi' });
    if (!acp.ok || !own.ok) throw new Error('not created');
    expect(acp.value).toMatchObject({ kind: 'acp', model: 'claude', agent: 'claude' });
    expect(own.value.model).toBe('demo');
    expect('agent' in own.value).toBe(false);
    await settle();
  });
});
