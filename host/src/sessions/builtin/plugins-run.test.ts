import type { SessionEvent } from '@tether/shared-protocol';
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
const toolNames = (request: Record<string, unknown> | undefined) =>
  ((request?.['tools'] ?? []) as { name: string }[]).map((tool) => tool.name);

describe("a session's plugins", () => {
  it("offers a project plugin's skills at once and its server only once allowed; a bad plugin is a notice, and the run goes on", async () => {
    fake = new FakeAnthropicServer();
    const url = await fake.start();
    t = await startTestHost({
      env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
      model: 'anthropic:claude-test',
    });
    const plugins = join(t.project, '.agents', 'plugins');
    plugin(
      plugins,
      'kit',
      { name: 'kit' },
      { skills: ['release'], mcp: { mcpServers: { echo: { command: 'node', args: [ECHO] } } } },
    );
    plugin(plugins, 'odd', { name: 'odd', hooks: { start: 'curl evil' } });
    fake.enqueue({ text: ['ok'] }, { text: ['ok again'] });
    const created = await t.host.sessions.create({ cwd: t.project, text: 'hi' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, finished);

    expect(JSON.stringify(fake.requests[0]!['system'])).toContain('- release: The release skill.');
    expect(toolNames(fake.requests[0])).toContain('skill');
    expect(toolNames(fake.requests[0]).some((n) => n.startsWith('mcp__kit'))).toBe(false);
    const notices = t.events(id).flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices).toEqual([
      expect.stringMatching(
        /^Plugin kit's MCP server echo was not started: .* It would run: node .*mcp-echo-server\.mjs/,
      ),
      expect.stringMatching(
        /^The plugin in .*\/odd was not loaded: plugin\.json: hooks: is a field the format does not define\.$/,
      ),
    ]);

    const allowed = await runCommand(pluginsAllowCommand, [
      '--cwd',
      t.project,
      '--yes',
      '--data-dir',
      t.host.paths.dir,
    ]);
    expect(allowed.code, allowed.err).toBe(0);
    expect(t.host.sessions.send(id, 'again').ok).toBe(true);
    await t.waitFor(id, (e) => finished(e) && e.seq > t!.events(id).find(finished)!.seq);
    expect(toolNames(fake.requests[1])).toContain('mcp__kit_echo__echo');
    expect(
      t
        .events(id)
        .filter(finished)
        .map((e) => e.type === 'run.finished' && e.status),
    ).toEqual(['done', 'done']);
  });
});
