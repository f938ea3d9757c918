import type { SessionEvent } from '@tether/shared-protocol';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

const of = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

async function start(): Promise<{ t: TestHost; fake: FakeAnthropicServer; id: string }> {
  fake = new FakeAnthropicServer();
  const url = await fake.start();
  t = await startTestHost({
    env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
    model: 'anthropic:claude-test',
  });
  const skill = join(t.project, '.agents', 'skills', 'review');
  mkdirSync(skill, { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    '---\nname: review\ndescription: Review the change for bugs\n---\nRead every changed file and list the bugs.\n',
  );
  fake.enqueue({ text: ['Hello.'] });
  const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
  if (!created.ok) throw new Error(created.error.message);
  // The folder's own skill loads once the person trusts the folder (folder trust asks first).
  const asked = await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
  if (asked.type !== 'approval.requested' || asked.approval.kind !== 'trust')
    throw new Error('expected a trust question');
  const trusted = t.host.parts.approvals.answer(
    asked.approval.id,
    { decision: 'allow-always' },
    { kind: 'local', label: 'test' },
  );
  if (!trusted.ok) throw new Error(trusted.error.message);
  await t.waitFor(created.value.id, (e) => e.type === 'run.finished');
  return { t, fake, id: created.value.id };
}

/** Sends `text` as a device's message and waits for the run it starts (if any) to end. */
async function send(t: TestHost, id: string, text: string, runs = false) {
  const before = of(t.events(id), 'run.finished').length;
  const sent = await t.host.parts.commands.send(id, text);
  if (runs) await t.waitFor(id, (e) => e.type === 'run.finished' && of(t.events(id), 'run.finished').length > before);
  return sent;
}

describe("the own loop's slash commands", () => {
  it('lists its commands and its skills, and carries out /help, /model, /mode and /plan without a model call', async () => {
    const { t, fake, id } = await start();
    const controls = await t.host.parts.steering.controls(id);
    if (!controls.ok) throw new Error(controls.error.message);
    expect(controls.value.commands.map((c) => `${c.source}:${c.name}`)).toEqual([
      'tether:compact',
      'tether:model',
      'tether:mode',
      'tether:plan',
      'tether:clear',
      'tether:help',
      'skill:review',
    ]);
    // The host's default, the demo, and the default of each provider with a key.
    expect(controls.value.models.map((m) => m.id)).toEqual([
      'anthropic:claude-test',
      'demo',
      'anthropic:claude-sonnet-5-5',
    ]);
    const calls = fake.requests.length;

    expect((await send(t, id, '/help')).ok).toBe(true);
    expect(of(t.events(id), 'notice').at(-1)?.text).toMatch(/^Commands:\n\/compact \[what to keep in focus\]: /);
    expect(of(t.events(id), 'notice').at(-1)?.text).toContain('/review [what for]: Review the change for bugs');
    expect((await send(t, id, '/model')).ok).toBe(true);
    expect(of(t.events(id), 'notice').at(-1)?.text).toBe(
      'Model: anthropic:claude-test. Offered: anthropic:claude-test, demo, anthropic:claude-sonnet-5-5.',
    );
    expect((await send(t, id, '/model demo')).ok).toBe(true);
    expect(t.host.parts.sessions.get(id)?.model).toBe('demo');
    const wrong = await send(t, id, '/model openai:gpt-5.4');
    expect(wrong.ok || wrong.error.code).toBe('invalid-params');
    expect((await send(t, id, '/plan')).ok).toBe(true);
    expect(t.host.parts.sessions.get(id)?.mode?.id).toBe('plan');
    expect((await send(t, id, '/mode default')).ok).toBe(true);
    expect(t.host.parts.sessions.get(id)?.mode?.id).toBe('default');
    expect(fake.requests).toHaveLength(calls);
    // None of them is a message of the conversation.
    expect(
      of(t.events(id), 'message')
        .filter((m) => m.role === 'user')
        .map((m) => m.text),
    ).toEqual(['hi']);
  });

  it('refuses a /word it does not know, and sends //… as text that begins with /', async () => {
    const { t, fake, id } = await start();
    const unknown = await send(t, id, '/deploy now');
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.message).toMatch(/^\/deploy is not a command of this session/);
    fake.enqueue({ text: ['That is a path.'] });
    expect((await send(t, id, '//etc/hosts', true)).ok).toBe(true);
    expect((await send(t, id, '/etc/passwd is where?', false)).ok).toBe(true);
    const users = of(t.events(id), 'message')
      .filter((m) => m.role === 'user')
      .map((m) => m.text);
    expect(users.slice(1)).toEqual(['/etc/hosts', '/etc/passwd is where?']);
  });

  it("a skill's name loads the skill for the model before its turn, logged as the loop's own skill call", async () => {
    const { t, fake, id } = await start();
    fake.enqueue({ text: ['No bugs.'] });
    expect((await send(t, id, '/review the last commit', true)).ok).toBe(true);
    const messages = fake.requests.at(-1)!['messages'] as { role: string; content: unknown }[];
    const text = JSON.stringify(messages.slice(-3));
    expect(text).toContain('/review the last commit');
    expect(text).toContain('"name":"skill"');
    expect(text).toContain('Read every changed file and list the bugs.');
    expect(of(t.events(id), 'tool.started').at(-1)).toMatchObject({ tool: 'skill', input: { name: 'review' } });
  });

  it('/clear goes on in a new session in the same folder, with the same model and mode', async () => {
    const { t, id } = await start();
    await t.host.parts.steering.setMode(id, 'plan');
    const cleared = await send(t, id, '/clear');
    if (!cleared.ok) throw new Error(cleared.error.message);
    const next = cleared.value.session!;
    expect(next).not.toBe(id);
    expect(t.host.parts.sessions.get(next)).toMatchObject({
      cwd: t.project,
      model: 'anthropic:claude-test',
      status: 'idle',
      mode: { id: 'plan' },
    });
    expect(of(t.events(next), 'message')).toHaveLength(0);
    expect(of(t.events(id), 'notice').at(-1)?.text).toBe(
      `Cleared: this conversation goes on in a new session, ${next}.`,
    );
  });

  it('/compact summarizes every turn but the newest now, in a run of its own, with the focus asked for', async () => {
    const { t, fake, id } = await start();
    fake.enqueue({ text: ['Second answer.'] }, { text: ['Third answer.'] });
    await send(t, id, 'second question', true);
    await send(t, id, 'third question', true);
    fake.enqueue({ text: ['They greeted and asked two questions.'] });
    expect((await send(t, id, '/compact keep the questions', true)).ok).toBe(true);
    const compacted = of(t.events(id), 'context.compacted').at(-1)!;
    expect(compacted).toMatchObject({
      reason: 'asked',
      summarized: 3,
      summary: 'They greeted and asked two questions.',
    });
    expect(JSON.stringify(fake.requests.at(-1)!['system'])).toContain('keep the questions');
    // The next turn sees the summary in place of the older turns.
    fake.enqueue({ text: ['ok'] });
    await send(t, id, 'go on', true);
    const messages = JSON.stringify(fake.requests.at(-1)!['messages']);
    expect(messages).toContain('They greeted and asked two questions.');
    expect(messages).not.toContain('second question');
  });
});
