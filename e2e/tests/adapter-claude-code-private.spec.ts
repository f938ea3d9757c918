import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnthropicStandIn } from '../support/anthropic-stand-in.js';
import { startAnthropicStandIn } from '../support/anthropic-stand-in.js';
import { claudeCodeAgent } from '../support/acp-adapters.js';
import type { AdapterHost } from '../support/adapter-host.js';
import { eventsOfType, runEnd, startAdapterHost } from '../support/adapter-host.js';

/**
 * The attack as it was shown: a Claude Code session in the home folder, where the model asks
 * Claude Code's own tools (which run inside the agent, never through Tether's client) for the
 * SSH key. Against the real `@zed-industries/claude-code-acp` and the Claude Code CLI it runs, a
 * loopback stand-in for the model, and a home of the test's own holding a fake private key.
 */
test.describe.configure({ mode: 'serial', timeout: 150_000 });

const NEEDLE = 'PRIVATE-KEY-NEEDLE-5f1c';

let model: AnthropicStandIn;
let host: AdapterHost;
let home: string;

test.beforeAll(async () => {
  model = await startAnthropicStandIn();
  host = await startAdapterHost(
    (dir) => {
      home = join(dir, 'home');
      return { 'claude-code': claudeCodeAgent(model, home) };
    },
    { home: (dir) => join(dir, 'home') },
  );
  for (const file of ['.ssh/id_ed25519', '.aws/credentials', '.npmrc', '.config/gh/hosts.yml', '.bashrc']) {
    mkdirSync(join(home, file, '..'), { recursive: true });
    writeFileSync(join(home, file), `-----BEGIN OPENSSH PRIVATE KEY-----\n${NEEDLE} in ${file}\n`);
  }
  mkdirSync(join(home, 'code'), { recursive: true });
  writeFileSync(join(home, 'code', 'app.ts'), 'export const app = 1;\n');
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

/** Each of Claude Code's own reading tools, asked for a private path in the ways a model might. */
const ATTEMPTS = () => [
  { tool: 'Grep', input: { pattern: 'PRIVATE', path: join(home, '.ssh'), output_mode: 'content' } },
  { tool: 'Grep', input: { pattern: 'NEEDLE', path: '.ssh', output_mode: 'content' } },
  { tool: 'Grep', input: { pattern: 'NEEDLE', output_mode: 'content' } },
  { tool: 'Grep', input: { pattern: 'NEEDLE', path: join(home, '.npmrc'), output_mode: 'content' } },
  { tool: 'Glob', input: { pattern: '**/*', path: join(home, '.ssh') } },
  { tool: 'Glob', input: { pattern: '.aws/*' } },
  { tool: 'Grep', input: { pattern: 'NEEDLE', glob: '**/hosts.yml', output_mode: 'content' } },
  { tool: 'Grep', input: { pattern: 'NEEDLE', path: join(home, '.bashrc'), output_mode: 'content' } },
  {
    tool: 'NotebookEdit',
    input: { notebook_path: join(home, '.ssh', 'keys.ipynb'), new_source: 'x', cell_type: 'code', edit_mode: 'insert' },
  },
  // Still useful where nothing is private.
  { tool: 'Grep', input: { pattern: 'export const app', output_mode: 'content' } },
];

test('Claude Code’s own Grep and Glob read nothing private in a session in the home folder', async () => {
  const attempts = ATTEMPTS();
  model.model.script(...attempts.map((attempt) => [attempt]), [{ text: 'Done looking.' }]);
  const { follow } = await host.newSession('claude-code', 'look for keys', home);
  const end = await runEnd(follow, 1);
  const offered = (model.model.turns()[0]?.body.tools as { name: string }[] | undefined)?.map((t) => t.name) ?? [];
  // Every attempt reached the agent (the model was asked again after each), and none read a key.
  const results = model.toolResults();
  expect(results.length, `tools offered: ${offered.join(', ')}; run: ${JSON.stringify(end)}`).toBeGreaterThanOrEqual(
    attempts.length,
  );
  for (const [i, result] of results.entries()) expect(result, JSON.stringify(attempts[i])).not.toContain(NEEDLE);
  expect(results.at(-1)).toContain('app.ts');
  // Refused by Claude Code's own rules: nobody was asked, and nothing was written.
  expect(eventsOfType(follow, 'approval.requested')).toHaveLength(0);
  expect(existsSync(join(home, '.ssh', 'keys.ipynb'))).toBe(false);
  expect(JSON.stringify(model.model.calls.map((c) => c.body))).not.toContain(NEEDLE);
  expect(JSON.stringify(follow.events)).not.toContain(NEEDLE);
});
