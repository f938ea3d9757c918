import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

const toolNames = (request: Record<string, unknown>) =>
  (request['tools'] as { name: string }[]).map((tool) => tool.name);
const call = (name: string, input: unknown) => ({ toolCalls: [{ name, argumentChunks: [JSON.stringify(input)] }] });
const person = { kind: 'device' as const, id: 'd1', label: 'phone' };

async function nthApproval(t: TestHost, id: string, nth: number): Promise<Approval> {
  let seen = 0;
  const event = await t.waitFor(id, (e) => e.type === 'approval.requested' && ++seen === nth);
  return (event as Extract<SessionEvent, { type: 'approval.requested' }>).approval;
}

describe("the own loop's plan mode", () => {
  it('has only the tools that change nothing, asks the person to accept the plan whatever auto-approve says, and then works with its normal tools', async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
    });
    fake.enqueue(
      call('read_file', { path: 'notes.txt' }),
      call('propose_plan', { plan: '1. Rewrite notes.txt' }),
      call('propose_plan', { plan: '1. Rewrite notes.txt\n2. Say what changed' }),
      call('write_file', { path: 'notes.txt', content: 'rewritten\n' }),
      { text: ['Done: notes.txt is rewritten.'] },
    );
    const created = await t.host.parts.steering.create({ cwd: t.project, text: 'tidy the notes' }, { mode: 'plan' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    expect(created.value.mode).toEqual({ id: 'plan', name: 'Plan' });
    // Auto-approve answers every action but the plan itself.
    t.host.parts.sessions.setAutoApprove(id, true);

    const first = await nthApproval(t, id, 1);
    expect(first).toMatchObject({ kind: 'plan', tool: 'propose_plan', action: '1. Rewrite notes.txt' });
    expect(toolNames(fake.requests[0]!)).toEqual(['read_file', 'list_dir', 'search', 'propose_plan']);
    expect(JSON.stringify(fake.requests[0]!['system'])).toContain('plan mode');
    t.host.parts.approvals.answer(first.id, { decision: 'deny', note: 'also say what changed' }, person);

    const second = await nthApproval(t, id, 2);
    expect(second.action).toBe('1. Rewrite notes.txt\n2. Say what changed');
    // A plan is accepted once: no rule can take later plans for granted.
    const forSession = t.host.parts.approvals.answer(second.id, { decision: 'allow-session' }, person);
    expect(forSession.ok).toBe(false);
    expect(t.host.parts.approvals.answer(second.id, { decision: 'allow-once' }, person).ok).toBe(true);

    await t.waitFor(id, (e) => e.type === 'run.finished');
    expect(fake.requests).toHaveLength(5);
    expect(JSON.stringify(fake.requests[2]!['messages'])).toContain(
      'The person did not accept the plan. Their note: also say what changed You are still in plan mode',
    );
    expect(toolNames(fake.requests[2]!)).not.toContain('write_file');
    // Accepted: the rest of the run has the normal tools, and the write ran (auto-approve).
    expect(toolNames(fake.requests[3]!)).toEqual(expect.arrayContaining(['shell', 'write_file', 'edit_file']));
    expect(toolNames(fake.requests[3]!)).not.toContain('propose_plan');
    expect(readFileSync(join(t.project, 'notes.txt'), 'utf8')).toBe('rewritten\n');
    expect(t.host.parts.sessions.get(id)?.mode).toEqual({ id: 'default', name: 'Default' });
    expect(
      t.events(id).some((e) => e.type === 'notice' && e.text === 'Plan accepted: the session left plan mode.'),
    ).toBe(true);
  });

  it('is switched on and off from any surface, and an unknown mode is refused with the list', async () => {
    t = await startTestHost({ model: 'demo' });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    const plan = await t.host.parts.steering.setMode(id, 'plan');
    expect(plan.ok && plan.value.mode).toEqual({ id: 'plan', name: 'Plan' });
    const unknown = await t.host.parts.steering.setMode(id, 'yolo');
    expect(unknown.ok || unknown.error.message).toBe('no mode yolo: choose default or plan');
    const controls = await t.host.parts.steering.controls(id);
    expect(controls.ok && controls.value.modes.map((m) => m.id)).toEqual(['default', 'plan']);
    expect(controls.ok && controls.value.mode).toBe('plan');
  });
});
