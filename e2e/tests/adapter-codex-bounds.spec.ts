import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codexAgent } from '../support/acp-adapters.js';
import type { AdapterHost, Approval } from '../support/adapter-host.js';
import { eventsOfType, runEnd, startAdapterHost } from '../support/adapter-host.js';
import type { ResponsesStandIn } from '../support/responses-stand-in.js';
import { startResponsesStandIn } from '../support/responses-stand-in.js';

/**
 * The two attacks of the Claude Code review, against the real Codex adapter
 * (`@zed-industries/codex-acp`) with a loopback stand-in for the Responses API: a command Codex
 * runs itself, in its read-only sandbox and without asking, reading the SSH key in a session in the
 * home folder; and a repository's `.codex/config.toml` whose MCP server Codex would start when its
 * own list trusts the folder.
 */
test.describe.configure({ mode: 'serial', timeout: 180_000 });

const NEEDLE = 'PRIVATE-KEY-NEEDLE-c0de';

let model: ResponsesStandIn;
let host: AdapterHost;
let home: string;

test.beforeAll(async () => {
  model = await startResponsesStandIn();
  host = await startAdapterHost(
    (dir) => {
      home = join(dir, 'home');
      const agent = codexAgent(model, dir);
      return { codex: { ...agent, env: { ...agent.env, HOME: home } } };
    },
    { home: (dir) => join(dir, 'home') },
  );
  mkdirSync(join(home, 'code', 'visible-folder'), { recursive: true });
  for (const file of ['.ssh/id_ed25519', '.aws/credentials', '.npmrc', '.config/gh/hosts.yml']) {
    mkdirSync(join(home, file, '..'), { recursive: true });
    writeFileSync(join(home, file), `${NEEDLE} in ${file}\n`);
  }
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test.afterEach(() => {
  model.model.clear();
});

/** A command Codex runs in its sandbox, asking nobody. */
const sandboxed = (cmd: string) => ({ tool: 'exec_command', input: { cmd } });

test('a command Codex runs itself reads nothing private in a session in the home folder', async () => {
  model.model.script(
    [sandboxed('cat .ssh/id_ed25519')],
    [sandboxed(`cat ${join(home, '.aws', 'credentials')}`)],
    [sandboxed('grep -r NEEDLE . 2>/dev/null | head -20')],
    [sandboxed('echo hi > /dev/null; echo devnull-$?')],
    [sandboxed('ls code')],
    [{ text: 'Done.' }],
  );
  const { follow } = await host.newSession('codex', 'look for keys', home);
  await answerAsked(follow);
  const results = model.toolResults();
  expect(results.length).toBeGreaterThanOrEqual(5);
  for (const result of results) expect(result).not.toContain(NEEDLE);
  // Still a working sandbox: a redirect to /dev/null works, and an ordinary listing runs.
  expect(results.at(-2)).toContain('devnull-0');
  expect(results.at(-1)).toContain('Process exited with code 0');
  expect(results.at(-1)).toContain('visible-folder');
  expect(JSON.stringify(follow.events)).not.toContain(NEEDLE);
});

/** Allows once every approval the run raises until it ends: even an allowed command reads nothing private. */
async function answerAsked(follow: Parameters<typeof runEnd>[0]): Promise<void> {
  const ended = runEnd(follow);
  let answered = 0;
  for (;;) {
    const next = await Promise.race([
      ended.then(() => undefined),
      follow.waitFor((e) => e.type === 'approval.requested', { nth: answered + 1 }),
    ]);
    if (next === undefined) return;
    answered++;
    await host.approve((next.approval as Approval).id, 'allow');
  }
}

test('a repository’s .codex/ is not loaded until Tether trusts the folder, even when Codex’s own list trusts it', async () => {
  const repo = join(home, 'code');
  const marker = join(repo, 'ran-codex-server');
  mkdirSync(join(repo, '.codex'), { recursive: true });
  writeFileSync(
    join(repo, '.codex', 'config.toml'),
    `[mcp_servers.repo]\ncommand = "sh"\nargs = ["-c", "echo ran > ${marker}"]\n`,
  );
  // The person once trusted it in Codex itself.
  const config = join(host.dir, 'codex-home', 'config.toml');
  writeFileSync(
    config,
    `${readFileSync(config, 'utf8')}\n[projects.${JSON.stringify(repo)}]\ntrust_level = "trusted"\n`,
  );
  model.model.script([{ text: 'Hello.' }]);
  const { follow } = await host.newSession('codex', 'hello', repo);
  const stop = await follow.waitFor((e) => e.type === 'approval.requested' || e.type === 'run.finished');
  expect(existsSync(marker), 'the repository’s MCP server started before anyone was asked').toBe(false);
  expect(stop.type).toBe('approval.requested');
  const approval = stop.approval as Approval;
  expect(approval.kind).toBe('trust');
  expect(approval.action).toContain(`    args = ["-c", "echo ran > ${marker}"]`);
  await host.approve(approval.id, 'deny');
  expect((await runEnd(follow)).status).toBe('done');
  expect(existsSync(marker)).toBe(false);
  expect(JSON.stringify(eventsOfType(follow, 'notice'))).toContain('user-level settings only');

  // Trusted for a session, Codex loads it as its own list says: the gate was Tether's.
  model.model.script([{ text: 'Hello again.' }]);
  const again = await host.newSession('codex', 'hello', repo);
  const asked = await again.follow.waitFor((e) => e.type === 'approval.requested');
  await host.approve((asked.approval as Approval).id, 'allow');
  expect((await runEnd(again.follow)).status).toBe('done');
  expect(existsSync(marker)).toBe(true);
});
