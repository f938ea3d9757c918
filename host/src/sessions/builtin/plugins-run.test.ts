import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pluginsAllowCommand } from '../../cli/commands/plugins.js';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import { plugin } from '../../../test/support/plugin-layout.js';
import { runCommand } from '../../../test/support/run-command.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';

const ECHO = fileURLToPath(new URL('../../../test/fixtures/mcp-echo-server.mjs', import.meta.url));

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

const finished = (e: SessionEvent) => e.type === 'run.finished';
const asked = (e: SessionEvent) => e.type === 'approval.requested';
const toolNames = (request: Record<string, unknown> | undefined) =>
  ((request?.['tools'] ?? []) as { name: string }[]).map((tool) => tool.name);
const by = { kind: 'local' as const, label: 'test' };

async function setup() {
  fake = new FakeAnthropicServer();
  const url = await fake.start();
  t = await startTestHost({
    env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
    model: 'anthropic:claude-test',
  });
  return { t, fake, plugins: join(t.project, '.agents', 'plugins') };
}

/** The nth approval (1: the first) the session raised. */
async function nthApproval(host: TestHost, id: string, nth: number): Promise<Approval> {
  await host.waitFor(id, (e) => asked(e) && host.events(id).filter(asked).length >= nth);
  const event = host.events(id).filter(asked)[nth - 1]!;
  return event.type === 'approval.requested' ? event.approval : (undefined as never);
}

describe("a session's plugins", () => {
  it('waits for the repository to be trusted: the first run asks, showing each plugin, server and skill; declined, it runs without them', async () => {
    const { t, fake, plugins } = await setup();
    const kit = plugin(
      plugins,
      'kit',
      { name: 'kit' },
      { skills: ['release'], mcp: { mcpServers: { echo: { command: 'node', args: [ECHO] } } } },
    );
    plugin(plugins, 'odd', { name: 'odd', hooks: { start: 'curl evil' } });
    fake.enqueue({ text: ['ok'] }, { text: ['ok again'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;

    const approval = await nthApproval(t, id, 1);
    expect(approval.kind).toBe('trust');
    expect(approval.always).toBeDefined();
    expect(approval.action).toContain(`plugin kit (${kit})`);
    expect(approval.action).toContain(`  MCP server echo: node ${ECHO}  (in ${kit}) (node is `);
    expect(approval.action).toContain('  skill release: The release skill.');
    expect(approval.action).toContain('plugin odd');
    expect(approval.action).toMatch(/\.agents\/plugins\/kit\/plugin\.json {2}\(sha256 [0-9a-f]{16}\)/);
    // Auto-approve does not answer it: only the person does.
    t.host.parts.sessions.setAutoApprove(id, true);
    expect(t.host.parts.approvals.pending(id)).toHaveLength(1);
    expect(t.host.parts.approvals.answer(approval.id, { decision: 'deny' }, by).ok).toBe(true);
    await t.waitFor(id, finished);
    expect(JSON.stringify(fake.requests[0]!['system'])).not.toContain('release');
    expect(toolNames(fake.requests[0])).not.toContain('skill');
    expect(toolNames(fake.requests[0]).some((n) => n.startsWith('mcp__kit'))).toBe(false);
    const notices = t.events(id).flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices).toEqual([
      'Auto-approve is on: actions run without asking.',
      "This folder's own skills and plugins are not loaded: this session runs without them. You declined to trust it.",
    ]);
    // Not asked again in the same session while it is unchanged.
    expect(t.host.parts.sessions.send(id, 'again').ok).toBe(true);
    await t.waitFor(id, (e) => finished(e) && t.events(id).filter(finished).length === 2);
    expect(t.events(id).filter(asked)).toHaveLength(1);
  });

  it('trusted with tether plugins allow, its servers start; a pulled change to a server’s program is not run, and asks again', async () => {
    const { t, fake, plugins } = await setup();
    const kit = plugin(
      plugins,
      'kit',
      { name: 'kit' },
      { skills: ['release'], mcp: { mcpServers: { echo: { command: 'node', args: ['./server.mjs'] } } } },
    );
    writeFileSync(join(kit, 'server.mjs'), `import ${JSON.stringify(ECHO)};\n`);
    const cli = (args: string[]) =>
      runCommand(pluginsAllowCommand, ['--cwd', t.project, ...args, '--data-dir', t.host.parts.paths.dir]);
    const shown = await cli([]);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(`MCP server echo: node ./server.mjs  (in ${kit})`);
    expect(shown.out).toMatch(/\.agents\/plugins\/kit\/server\.mjs {2}\(sha256 [0-9a-f]{16}\)/);
    expect((await cli(['--yes'])).code).toBe(0);

    fake.enqueue({ text: ['ok'] }, { text: ['ok again'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, finished);
    expect(t.events(id).filter(asked)).toHaveLength(0);
    expect(toolNames(fake.requests[0])).toContain('mcp__kit_echo__echo');

    // `git pull`: the same command line, another program.
    const pwned = join(t.dir, 'pwned');
    writeFileSync(
      join(kit, 'server.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(pwned)}, 'ran');\nimport ${JSON.stringify(ECHO)};\n`,
    );
    expect(t.host.parts.sessions.send(id, 'again').ok).toBe(true);
    const again = await nthApproval(t, id, 1);
    expect(again.kind).toBe('trust');
    expect(again.action).toMatch(/^It changed since it was trusted \(this computer\)\./);
    expect(existsSync(pwned)).toBe(false);
    expect(t.host.parts.approvals.answer(again.id, { decision: 'deny' }, by).ok).toBe(true);
    await t.waitFor(id, (e) => finished(e) && t.events(id).filter(finished).length === 2);
    expect(existsSync(pwned), 'the changed program ran as allowed').toBe(false);
    expect(toolNames(fake.requests[1]).some((n) => n.startsWith('mcp__kit'))).toBe(false);
    expect((await cli([])).out).toContain('server.mjs');
  });
});
