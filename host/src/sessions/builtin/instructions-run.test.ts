import type { SessionEvent } from '@tether/shared-protocol';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionsShowCommand } from '../../cli/commands/sessions.js';
import { runCommand } from '../../../test/support/run-command.js';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';
import { INSTRUCTIONS_PROMPT_CHARS } from './project-instructions.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

const finished = (e: SessionEvent) => e.type === 'run.finished';

describe("a session's instructions", () => {
  it("puts the folder's AGENTS.md and the host's own file into the system prompt, and says which in the summary", async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
    });
    writeFileSync(join(t.project, 'AGENTS.md'), 'Run the tests with make check.');
    writeFileSync(join(t.dir, 'data', 'AGENTS.md'), 'Answer in French.');
    fake.enqueue({ text: ['ok'] }, { text: ['ok again'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, finished);
    const system = JSON.stringify(fake.requests[0]!['system']);
    expect(system).toContain('Run the tests with make check.');
    expect(system.indexOf('make check')).toBeLessThan(system.indexOf('Answer in French.'));
    expect(t.host.parts.sessions.get(id)?.activity?.instructions).toEqual([
      { path: join(t.project, 'AGENTS.md'), status: 'read', bytes: 30 },
      { path: join(t.dir, 'data', 'AGENTS.md'), status: 'read', bytes: 17 },
    ]);
    expect(t.events(id).some((e) => e.type === 'notice')).toBe(false);
    const shown = await runCommand(sessionsShowCommand, [id, '--data-dir', t.host.parts.paths.dir]);
    expect(shown.code, shown.err).toBe(0);
    const header = shown.out.split('\n');
    expect(header[0]).toBe('Model: anthropic:claude-test');
    expect(header.find((line) => line.startsWith('Instructions:'))).toBe(
      `Instructions: ${join(t.project, 'AGENTS.md')}, ${join(t.dir, 'data', 'AGENTS.md')}`,
    );
  });

  it('says in the transcript that a 10 MB AGENTS.md was cut, once, and the session goes on', async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
    });
    writeFileSync(join(t.project, 'AGENTS.md'), 'y'.repeat(10 * 1024 * 1024));
    fake.enqueue({ text: ['ok'] }, { text: ['ok again'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, finished);
    expect(t.host.parts.sessions.send(id, 'again').ok).toBe(true);
    await t.waitFor(id, (e) => finished(e) && e.seq > t!.events(id).find(finished)!.seq);
    const notices = t.events(id).filter((e) => e.type === 'notice');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ level: 'warning' });
    expect(JSON.stringify(notices[0])).toContain('AGENTS.md were cut');
    const system = JSON.stringify(fake.requests[0]!['system']);
    expect(system).toContain('yyyy');
    expect(system.length).toBeLessThan(INSTRUCTIONS_PROMPT_CHARS + 16 * 1024);
    expect(
      t
        .events(id)
        .filter(finished)
        .map((e) => e.type === 'run.finished' && e.status),
    ).toEqual(['done', 'done']);
    expect(t.host.parts.sessions.get(id)?.activity?.instructions?.[0]).toMatchObject({ status: 'cut' });
    const shown = await runCommand(sessionsShowCommand, [id, '--data-dir', t.host.parts.paths.dir]);
    expect(shown.out).toContain(`Instructions: ${join(t.project, 'AGENTS.md')} (cut)\n`);
  });

  it('says how full the context is, with the window --context-window gives the default model', async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
      contextWindow: 8192,
    });
    fake.enqueue({ text: ['ok'], usage: { input: 1234, output: 5 } });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    await t.waitFor(created.value.id, finished);
    expect(t.host.parts.sessions.get(created.value.id)?.activity?.context).toEqual({
      tokens: 1234,
      window: 8192,
      compactions: 0,
    });
    // The output room asked for is a quarter of a small window.
    expect(fake.requests[0]!['max_tokens']).toBe(2048);
    const shown = await runCommand(sessionsShowCommand, [created.value.id, '--data-dir', t.host.parts.paths.dir]);
    expect(shown.out).toContain('Context: 1.2k of 8.2k tokens (15%)\n');
  });

  it("lists the project's skills in the system prompt and loads one with the skill tool", async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
    });
    const folder = join(t.project, '.agents', 'skills', 'release');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'SKILL.md'),
      '---\nname: release\ndescription: Cut a release.\n---\nTag, then push the tag.\n',
    );
    fake.enqueue(
      { toolCalls: [{ name: 'skill', argumentChunks: ['{"name":"release"}'] }] },
      { text: ['Tagging now.'] },
    );
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'release it' });
    if (!created.ok) throw new Error(created.error.message);
    // A project's skills load once its folder is trusted: here for this session.
    const trust = await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
    if (trust.type !== 'approval.requested') throw new Error('not an approval');
    expect(trust.approval).toMatchObject({ kind: 'trust' });
    expect(trust.approval.action).toContain(`skill release (${folder}): Cut a release.`);
    t.host.parts.approvals.answer(trust.approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    await t.waitFor(created.value.id, finished);
    expect(JSON.stringify(fake.requests[0]!['system'])).toContain('- release: Cut a release.');
    expect(JSON.stringify(fake.requests[0]!['tools'])).toContain('"skill"');
    expect(t.events(created.value.id).find((e) => e.type === 'tool.finished')).toMatchObject({
      tool: 'skill',
      ok: true,
      output: 'Tag, then push the tag.',
    });
  });
});
