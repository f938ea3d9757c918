import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../approval-broker.js';
import { SessionManager } from '../session-manager.js';
import { ApprovalStore } from '../../store/approval-store.js';
import { EventLog } from '../../store/event-log.js';
import { SessionStore } from '../../store/session-store.js';
import type { MachineKit } from '../../machines/testing/machine-kit.js';
import { machineKit } from '../../machines/testing/machine-kit.js';
import { AcpBackend } from './acp-backend.js';
import { AcpSessionStore } from './acp-session-store.js';
import { AgentCatalog } from './agent-catalog.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/acp-scripted-agent.mjs', import.meta.url));

type Of<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

let kit: MachineKit | undefined;
let backend: AcpBackend | undefined;
afterEach(async () => {
  // The agents first, while their machine can still be told to end them.
  await backend?.close();
  backend = undefined;
  await kit?.close();
  kit = undefined;
});

/**
 * A host's session manager as host.ts builds it, with only the ACP back end (the scripted agent,
 * run by this Node), placing sessions on machines of an in-process kit; and a machine `laptop`
 * whose shared root holds the session folder `project` and, beside it, a file the session must
 * not reach. The clock is manual: no timeout of the back end or of the offline wait fires unless
 * a test moves it.
 */
async function setup(env: Record<string, string> = {}) {
  const clock = new ManualClock();
  kit = machineKit({ clock });
  const token = kit.tokens.create('laptop', 0).token;
  const machine = kit.machine({ token });
  await machine.reached('linked');
  const project = join(machine.root, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');
  writeFileSync(join(machine.root, 'secret.txt'), 'top secret');

  const log = new EventLog(kit.db, clock);
  let ids = 0;
  const newId = (prefix: string) => `${prefix}${++ids}`;
  const approvals = new ApprovalBroker(new ApprovalStore(kit.db), log, clock, () => newId('a'));
  const catalog = new AgentCatalog(
    [
      {
        name: 'scripted',
        title: 'Scripted',
        command: process.execPath,
        args: [FIXTURE],
        env,
        passEnv: [],
        allowEnv: [],
      },
    ],
    {},
  );
  const sessions = new SessionStore(kit.db);
  backend = new AcpBackend({
    catalog,
    log,
    sessions: new AcpSessionStore(kit.db),
    clock,
    env: {},
    steering: sessions.steering,
  });
  const manager = new SessionManager({
    sessions,
    log,
    approvals,
    backends: { acp: backend },
    contexts: (place, run) => kit!.registry.context(place, run),
    clock,
    newId,
    defaultModel: 'scripted',
  });

  const events = (id: string) => [...log.readAll(id)] as SessionEvent[];
  /** Waits for the session's log to get there: a bounded number of turns (not a time), generous
   * since real agent processes start on a loaded machine in seconds. */
  const until = async (id: string, check: (events: SessionEvent[]) => boolean, what: string) => {
    for (let i = 0; i < 3000 && !check(events(id)); i++) await new Promise((r) => setTimeout(r, 10));
    if (!check(events(id))) throw new Error(`never ${what}: ${JSON.stringify(events(id).map((e) => e.type))}`);
  };
  /** The session's `nth` run, once it has finished. */
  const finished = async (id: string, nth = 1) => {
    const ends = () => events(id).filter((e): e is Of<'run.finished'> => e.type === 'run.finished');
    await until(id, () => ends().length >= nth, `run ${nth} finished`);
    return ends()[nth - 1]!;
  };
  const approval = async (id: string): Promise<Approval> => {
    await until(id, () => approvals.pending(id).length > 0, 'asked');
    return approvals.pending(id)[0]!;
  };
  const start = async (text: string) => {
    const created = await manager.create({ cwd: project, text, kind: 'acp', model: 'scripted', place: 'laptop' });
    if (!created.ok) throw new Error(created.error.message);
    return created.value.id;
  };
  const said = (id: string) =>
    events(id)
      .flatMap((e) => (e.type === 'message' && e.role === 'assistant' ? [e.text] : []))
      .join('');
  const notices = (id: string) => events(id).filter((e): e is Of<'notice'> => e.type === 'notice');
  return {
    clock,
    sessions,
    token,
    machine,
    project,
    manager,
    approvals,
    events,
    until,
    finished,
    approval,
    start,
    said,
    notices,
  };
}

/** A first prompt answered, then the machine gone, then a second prompt waiting for it. */
async function promptWhileOffline() {
  const s = await setup();
  const id = await s.start('say first');
  await s.finished(id);
  await s.machine.stop();
  expect(s.manager.send(id, 'say second').ok).toBe(true);
  await s.until(id, () => s.notices(id).some((n) => n.text === 'waiting for laptop…'), 'waiting');
  return { s, id };
}

// Real agent processes (Node) on the machine: more time than the default per test.
describe('an ACP agent on a machine', { timeout: 60_000 }, () => {
  it('offers its commands, modes and models from there, and takes a mode chosen on the host', async () => {
    const s = await setup({ SCRIPTED_ACP_STEER: '1' });
    const id = await s.start('whatmode');
    await s.finished(id);
    const record = s.sessions.get(id)!;
    const controls = await backend!.steering!.controls(record);
    expect(controls.commands.map((c) => c.name)).toEqual(['review', 'init']);
    expect(controls.modes.map((m) => m.id)).toEqual(['ask', 'plan', 'auto']);
    const plan = await backend!.steering!.setMode(record, 'plan');
    expect(plan).toEqual({ ok: true, value: { id: 'plan', name: 'Plan' } });
    expect(s.manager.send(id, 'whatmode').ok).toBe(true);
    await s.finished(id, 2);
    expect(s.said(id)).toContain('mode plan, model small');
  });

  it('is started there, in the session folder, and its streamed text becomes messages', async () => {
    const s = await setup();
    const id = await s.start('say hello from the laptop\nrun pwd');
    const approval = await s.approval(id);
    expect(approval).toMatchObject({ tool: 'shell', action: 'pwd' });
    s.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await s.finished(id)).status).toBe('done');
    expect(s.events(id).some((e) => e.type === 'message.delta')).toBe(true);
    expect(s.said(id)).toContain('hello from the laptop');
    expect(s.said(id)).toContain('command ran (unasked), exit 0');
    // The agent's terminal ran on the machine, in the session folder.
    const outputs = s.events(id).filter((e): e is Of<'tool.finished'> => e.type === 'tool.finished');
    expect(outputs.some((e) => e.output.trim() === s.project)).toBe(true);
    // The process was the machine's: it is one of its live processes while kept for the next prompt.
    expect(backend!.liveAgents).toBe(1);
    expect(s.machine.executor.processes.count).toBe(1);
  });

  it('runs a shell line as Zed’s Claude Code adapter sends it through the machine’s shell, asked once', async () => {
    const s = await setup();
    const id = await s.start('ask-line echo acp-ok > proof.txt && pwd');
    const approval = await s.approval(id);
    expect(approval.action).toContain('\ncommand: echo acp-ok > proof.txt && pwd\n');
    expect(approval.place).toBe('laptop');
    s.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await s.finished(id)).status).toBe('done');
    expect(s.said(id)).toContain('command ran (yes), exit 0');
    expect(readFileSync(join(s.project, 'proof.txt'), 'utf8')).toBe('acp-ok\n');
    expect(s.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('a prefix rule asks for a word outside the session folder, checked on the machine', async () => {
    const s = await setup();
    const secret = join(s.machine.root, 'secret.txt');
    const id = await s.start(
      ['ask-run cat notes.txt', 'run cat notes.txt notes.txt', `run cat notes.txt ${secret}`].join('\n'),
    );
    const first = await s.approval(id);
    s.approvals.answer(
      first.id,
      { decision: 'allow-session', prefix: 'cat notes.txt' },
      { kind: 'local', label: 'test' },
    );
    await s.until(
      id,
      () => s.approvals.pending(id).length > 0 && s.approvals.pending(id)[0]!.id !== first.id,
      'asked again',
    );
    const again = s.approvals.pending(id)[0]!;
    expect(again.action).toBe(`cat notes.txt ${secret}`);
    s.approvals.answer(again.id, { decision: 'deny' }, { kind: 'local', label: 'test' });
    expect((await s.finished(id)).status).toBe('done');
    expect(s.said(id)).toContain('command ran (unasked), exit 0');
    expect(s.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(2);
  });

  it('serves reads of the machine’s files in the folder and refuses reads and writes outside it', async () => {
    const s = await setup();
    const secret = join(s.machine.root, 'secret.txt');
    const elsewhere = join(kit!.base, 'elsewhere.txt');
    writeFileSync(elsewhere, 'not shared');
    const id = await s.start(
      [
        'read notes.txt',
        `read ${secret}`,
        'read ../secret.txt',
        `read ${elsewhere}`,
        `write ${secret} pwned`,
        'write ../made-outside.txt pwned',
      ].join('\n'),
    );
    expect((await s.finished(id)).status).toBe('done');
    const said = s.said(id);
    expect(said).toContain('read: first line\nsecond line\n');
    expect(said.match(/(read|write) failed: [^\n]*? is outside the session folder/g)).toHaveLength(5);
    expect(said).not.toContain('top secret');
    expect(said).not.toContain('not shared');
    expect(readFileSync(secret, 'utf8')).toBe('top secret');
    expect(existsSync(join(s.machine.root, 'made-outside.txt'))).toBe(false);
    expect(s.notices(id).filter((n) => n.text.includes('outside the session folder'))).toHaveLength(5);
    expect(s.events(id).some((e) => e.type === 'approval.requested')).toBe(false);
  });

  it('asks for an edit as a Tether approval; once allowed, the write lands in the machine’s folder', async () => {
    const s = await setup();
    const id = await s.start('ask-edit made.txt written on\\nthe laptop\nsay after');
    const approval = await s.approval(id);
    expect(approval.action).toContain('Scripted asks: Write made.txt');
    expect(approval.action).toContain('+written on\n+the laptop');
    expect(approval.place).toBe('laptop');
    expect(existsSync(join(s.project, 'made.txt'))).toBe(false);
    s.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await s.finished(id)).status).toBe('done');
    expect(readFileSync(join(s.project, 'made.txt'), 'utf8')).toBe('written on\nthe laptop');
    expect(s.said(id)).toContain('edit allowed (yes) and written');
    // The write was what was approved: it did not ask again.
    expect(s.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('ends the run with the reason when the machine goes offline mid-run; the next prompt starts it there again', async () => {
    const s = await setup();
    // The plan comes after every chunk of the text (the agent sends in order): once it is logged,
    // the agent is waiting and all it said has arrived.
    const id = await s.start('say working\nplan wait\nwait\nsay never');
    await s.until(id, (e) => e.some((x) => x.type === 'plan'), 'waiting');
    // The agent is a process of the machine's link: it dies with it, and the host must notice.
    await s.machine.stop();
    const end = await s.finished(id);
    expect(end.status).toBe('error');
    expect(end.error).toBe('Scripted stopped: the place it ran on was lost (laptop disconnected; the process is gone)');
    expect(s.said(id)).toContain('working');
    expect(s.said(id)).not.toContain('never');
    expect(backend!.liveAgents).toBe(0);

    const back = kit!.machine({ token: s.token, root: s.machine.root });
    await back.reached('linked');
    expect(s.manager.send(id, 'say back again').ok).toBe(true);
    expect((await s.finished(id, 2)).status).toBe('done');
    expect(s.said(id)).toContain('back again');
    // A new process, which cannot load the session the lost one had: it says so.
    expect(s.notices(id).some((n) => n.text.includes('cannot load its earlier session'))).toBe(true);
  });

  it('an approval the agent waits on is withdrawn when the machine goes offline', async () => {
    const s = await setup();
    const id = await s.start('ask-edit made.txt never');
    const approval = await s.approval(id);
    await s.machine.stop();
    expect(await s.finished(id)).toMatchObject({
      status: 'error',
      error: 'Scripted stopped: the place it ran on was lost (laptop disconnected; the process is gone)',
    });
    expect(s.approvals.pending(id)).toEqual([]);
    const late = s.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect(late.ok).toBe(false);
    expect(existsSync(join(s.project, 'made.txt'))).toBe(false);
  });

  it('a prompt while the machine is offline waits for it with a notice, and goes on when it is back', async () => {
    const { s, id } = await promptWhileOffline();
    const back = kit!.machine({ token: s.token, root: s.machine.root });
    await back.reached('linked');
    expect((await s.finished(id, 2)).status).toBe('done');
    expect(s.notices(id).map((n) => n.text)).toContain('laptop is back');
    expect(s.said(id)).toContain('second');
  });

  it('an interrupt while the agent waits to start on an offline machine ends the run as interrupted', async () => {
    const { s, id } = await promptWhileOffline();
    s.manager.interrupt(id);
    expect((await s.finished(id, 2)).status).toBe('interrupted');
    // The spawn was dropped unsent: the machine, back, is not asked to start the agent. (A round
    // trip to it first, so that a spawn still queued would have been served.)
    const back = kit!.machine({ token: s.token, root: s.machine.root });
    await back.reached('linked');
    expect((await kit!.registry.context('laptop')!.checkFolder(s.project)).ok).toBe(true);
    expect(back.executor.processes.count).toBe(0);
    expect(backend!.liveAgents).toBe(0);
  });

  it('a prompt for a machine that stays offline past the setting ends as an error saying so', async () => {
    const { s, id } = await promptWhileOffline();
    s.clock.advance(15 * 60_000);
    const end = await s.finished(id, 2);
    expect(end.status).toBe('error');
    expect(end.error).toContain('could not be started: laptop stayed offline for 15 min; the run stopped');
    expect(s.said(id)).not.toContain('second');
  });
});
