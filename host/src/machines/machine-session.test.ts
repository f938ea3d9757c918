import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionEvent } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ApprovalBroker } from '../sessions/approval-broker.js';
import { BuiltinBackend } from '../sessions/builtin/builtin-backend.js';
import { SessionManager } from '../sessions/session-manager.js';
import type { ModelEvent, ModelProvider, ModelRequest } from '../models/types.js';
import { ApprovalStore } from '../store/approval-store.js';
import { EventLog } from '../store/event-log.js';
import { SessionStore } from '../store/session-store.js';
import { BUILTIN_TOOLS } from '../tools/builtin-tools.js';
import { machineFolder } from './machine-folders.js';
import type { MachineKit } from './testing/machine-kit.js';
import { machineKit } from './testing/machine-kit.js';

/** Asks for one shell command, then ends its turn saying what the tool answered. */
class OneCommandModel implements ModelProvider {
  readonly spec = 'scripted';
  readonly requests: ModelRequest[] = [];
  constructor(private readonly command: string) {}
  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    await Promise.resolve();
    const last = request.messages.at(-1);
    if (last?.role !== 'tool') {
      yield {
        type: 'tool-call',
        call: {
          id: `call-${this.requests.length}`,
          name: 'shell',
          arguments: JSON.stringify({ command: this.command }),
        },
      };
      yield { type: 'end', stopReason: 'tool-use' };
    } else {
      yield { type: 'text', text: `the tool said: ${last.results[0]?.output ?? ''}` };
      yield { type: 'end', stopReason: 'end' };
    }
  }
}

let kit: MachineKit;
afterEach(async () => kit.close());

function sessionsOn(clock: ManualClock, model: ModelProvider) {
  const log = new EventLog(kit.db, clock);
  const store = new SessionStore(kit.db);
  let ids = 0;
  const approvals = new ApprovalBroker(new ApprovalStore(kit.db), log, clock, () => `a${++ids}`);
  const backend = new BuiltinBackend({
    log,
    providers: () => ok({ provider: model, model: 'scripted' }),
    tools: () => BUILTIN_TOOLS,
    steering: store.steering,
    controls: { models: () => ['scripted'], contexts: (place) => kit.registry.context(place) },
  });
  const manager = new SessionManager({
    sessions: store,
    log,
    approvals,
    backends: { agent: backend },
    contexts: (place, run) => kit.registry.context(place, run),
    clock,
    newId: (prefix) => `${prefix}${++ids}`,
    defaultModel: 'scripted',
  });
  const events = (id: string) => [...log.readAll(id)] as SessionEvent[];
  const until = async (id: string, check: (events: SessionEvent[]) => boolean) => {
    for (let i = 0; i < 400 && !check(events(id)); i++) await new Promise((r) => setTimeout(r, 10));
    if (!check(events(id))) throw new Error(`never: ${JSON.stringify(events(id).map((e) => e.type))}`);
  };
  /** Resolves once the run asks for an approval (it has read the folder's instructions and skills by then). */
  const asked = (id: string) => until(id, () => approvals.pending(id).length > 0);
  /** Answers the session's pending approval, as the person would. */
  const allow = async (id: string) => {
    await asked(id);
    approvals.answer(approvals.pending(id)[0]!.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
  };
  return { manager, store, backend, events, until, asked, allow };
}

const notices = (events: SessionEvent[]) => events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
const finished = (events: SessionEvent[]) => events.filter((e) => e.type === 'run.finished');

async function session(manager: SessionManager, cwd: string) {
  const created = await manager.create({ cwd, text: 'go', place: 'laptop' });
  if (!created.ok) throw new Error(created.error.message);
  manager.setAutoApprove(created.value.id, true);
  return created.value.id;
}

describe('a session on a machine', () => {
  it("lists the machine folder's skills among its commands, and stops at its budget there", async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock });
    const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token });
    await machine.reached('linked');
    const skill = join(machine.root, '.agents', 'skills', 'deploy-check');
    mkdirSync(skill, { recursive: true });
    writeFileSync(join(skill, 'SKILL.md'), '---\nname: deploy-check\ndescription: Check a deploy\n---\nLook.\n');
    const model = new OneCommandModel('ls');
    const s = sessionsOn(clock, model);
    const id = await session(s.manager, machine.root);
    await s.until(id, (e) => finished(e).length > 0);
    const controls = await s.backend.steering!.controls(s.store.get(id)!);
    expect(controls.commands.filter((c) => c.source === 'skill').map((c) => c.name)).toEqual(['deploy-check']);

    // Less room than any request takes: the next model call is not made, and the session waits.
    s.store.steering.setBudget(id, { tokens: 100 });
    const calls = model.requests.length;
    expect(s.manager.send(id, 'again').ok).toBe(true);
    await s.until(id, (e) => e.some((x) => x.type === 'session.waiting' && x.reason === 'budget'));
    expect(model.requests).toHaveLength(calls);
    expect(s.manager.get(id)?.activity?.budgetReached).toBe(true);
  });

  it('runs its shell tool there', async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock });
    const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token });
    await machine.reached('linked');
    writeFileSync(join(machine.root, 'only-on-the-machine.txt'), 'x');
    const s = sessionsOn(clock, new OneCommandModel('ls'));
    const id = await session(s.manager, machine.root);
    await s.until(id, (e) => finished(e).length > 0);
    expect(s.events(id).find((e) => e.type === 'tool.finished')).toMatchObject({
      ok: true,
      output: expect.stringContaining('only-on-the-machine.txt') as string,
    });
    expect(finished(s.events(id))[0]).toMatchObject({ status: 'done' });
  });

  it('is refused at creation outside the roots (named), and while the machine is offline', async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock });
    const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token });
    await machine.reached('linked');
    expect(machineFolder(kit.registry, 'laptop', '/etc')).toMatchObject({
      ok: false,
      error: { code: 'forbidden', message: `/etc is outside the folders laptop shares: ${machine.root}` },
    });
    expect(machineFolder(kit.registry, 'laptop', `${machine.root}/../..`)).toMatchObject({
      ok: false,
      error: { code: 'forbidden' },
    });
    expect(machineFolder(kit.registry, 'desktop', machine.root)).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
    await machine.stop();
    const s = sessionsOn(clock, new OneCommandModel('ls'));
    expect(await s.manager.create({ cwd: machine.root, text: 'go', place: 'laptop' })).toMatchObject({
      ok: false,
      error: { code: 'unavailable', message: 'laptop is offline' },
    });
  });

  it('waits for the machine with a notice, and goes on when it is back', async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock });
    const token = kit.tokens.create('laptop', 0).token;
    const first = kit.machine({ token });
    await first.reached('linked');
    const s = sessionsOn(clock, new OneCommandModel('echo ran-on-the-machine'));
    const created = await s.manager.create({ cwd: first.root, text: 'go', place: 'laptop' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    // Offline before the tool call goes out (the approval holds it until then).
    await s.asked(id);
    await first.stop();
    await s.allow(id);
    await s.until(id, (e) => notices(e).includes('waiting for laptop…'));
    expect(s.events(id).some((e) => e.type === 'tool.finished')).toBe(false);
    const again = kit.machine({ token });
    await again.reached('linked');
    await s.until(id, (e) => finished(e).length > 0);
    expect(notices(s.events(id))).toEqual(expect.arrayContaining(['waiting for laptop…', 'laptop is back']));
    expect(s.events(id).find((e) => e.type === 'tool.finished')).toMatchObject({
      ok: true,
      output: expect.stringContaining('ran-on-the-machine') as string,
    });
    expect(finished(s.events(id))[0]).toMatchObject({ status: 'done' });
  });

  it('stops the run with a notice when the machine stays offline past the setting', async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock, waitMs: 15 * 60_000 });
    const machine = kit.machine({ token: kit.tokens.create('laptop', 0).token });
    await machine.reached('linked');
    const s = sessionsOn(clock, new OneCommandModel('make'));
    const created = await s.manager.create({ cwd: machine.root, text: 'go', place: 'laptop' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await s.asked(id);
    await machine.stop();
    await s.allow(id);
    await s.until(id, (e) => notices(e).includes('waiting for laptop…'));
    clock.advance(15 * 60_000);
    await s.until(id, (e) => finished(e).length > 0);
    expect(finished(s.events(id))[0]).toMatchObject({ status: 'error' });
    expect(notices(s.events(id)).at(-1)).toBe(
      'the machine laptop is not reachable: laptop stayed offline for 15 min; the run stopped',
    );
  });

  it('an interrupt while waiting drops the call: nothing runs when the machine is back', async () => {
    const clock = new ManualClock();
    kit = machineKit({ clock });
    const token = kit.tokens.create('laptop', 0).token;
    const machine = kit.machine({ token });
    await machine.reached('linked');
    const s = sessionsOn(clock, new OneCommandModel('touch ran.txt'));
    const created = await s.manager.create({ cwd: machine.root, text: 'go', place: 'laptop' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await s.asked(id);
    await machine.stop();
    await s.allow(id);
    await s.until(id, (e) => notices(e).includes('waiting for laptop…'));
    s.manager.interrupt(id);
    await s.until(id, (e) => finished(e).length > 0);
    expect(finished(s.events(id))[0]).toMatchObject({ status: 'interrupted' });
    const back = kit.machine({ token });
    await back.reached('linked');
    await new Promise((r) => setTimeout(r, 50));
    const { existsSync } = await import('node:fs');
    expect(existsSync(join(machine.root, 'ran.txt'))).toBe(false);
  });
});
