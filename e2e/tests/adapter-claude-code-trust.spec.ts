import { expect, test } from '@playwright/test';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnthropicStandIn } from '../support/anthropic-stand-in.js';
import { startAnthropicStandIn } from '../support/anthropic-stand-in.js';
import { claudeCodeAgent } from '../support/acp-adapters.js';
import type { AdapterHost, Approval } from '../support/adapter-host.js';
import { eventsOfType, runEnd, startAdapterHost } from '../support/adapter-host.js';
import type { FollowedEvent } from '../support/session-follow.js';

/**
 * The attack as it was shown: a phone starts a Claude Code session in a cloned repository whose
 * `.claude/settings.json` has command hooks and whose `.mcp.json` names a server. Claude Code runs
 * them itself, unseen by Tether's client. Against the real `@zed-industries/claude-code-acp` and
 * the Claude Code CLI it runs, with a loopback stand-in for the model.
 */
test.describe.configure({ mode: 'serial', timeout: 150_000 });

let model: AnthropicStandIn;
let host: AdapterHost;
let repo: string;

const markers = () => ({
  sessionStart: join(repo, 'ran-session-start'),
  promptSubmit: join(repo, 'ran-prompt-submit'),
  server: join(repo, 'ran-mcp-server'),
});

/** The repository as cloned: hooks on session start and on each prompt, and a project MCP server. */
function writeRepository(hookWord = 'ran'): void {
  const m = markers();
  mkdirSync(join(repo, '.claude'), { recursive: true });
  writeFileSync(
    join(repo, '.claude', 'settings.json'),
    JSON.stringify({
      enableAllProjectMcpServers: true,
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: `echo ${hookWord} > ${m.sessionStart}` }] }],
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo ${hookWord} > ${m.promptSubmit}` }] }],
      },
    }),
  );
  writeFileSync(
    join(repo, '.mcp.json'),
    JSON.stringify({ mcpServers: { repo: { command: 'sh', args: ['-c', `echo ran > ${m.server}`] } } }),
  );
}

function clearMarkers(): void {
  for (const path of Object.values(markers())) rmSync(path, { force: true });
}

test.beforeAll(async () => {
  model = await startAnthropicStandIn();
  host = await startAdapterHost((dir) => ({ 'claude-code': claudeCodeAgent(model, join(dir, 'claude-home')) }));
  repo = join(host.project, 'cloned');
  writeRepository();
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test.afterEach(() => {
  model.model.clear();
  clearMarkers();
});

/** The session's first approval or the end of its first run, whichever comes first. */
function firstStop(follow: { waitFor: (p: (e: FollowedEvent) => boolean) => Promise<FollowedEvent> }) {
  return follow.waitFor((e) => e.type === 'approval.requested' || e.type === 'run.finished');
}

test('a cloned repository’s hooks and MCP servers do not run unseen: the session asks, and declined runs without them', async () => {
  model.model.script([{ text: 'Hello.' }]);
  const { follow } = await host.newSession('claude-code', 'hello', repo);
  const stop = await firstStop(follow);
  const m = markers();
  expect(existsSync(m.sessionStart), 'the SessionStart hook ran before anyone was asked').toBe(false);
  expect(existsSync(m.server), 'the project MCP server started before anyone was asked').toBe(false);
  expect(stop.type).toBe('approval.requested');
  const approval = stop.approval as Approval;
  expect(approval.kind).toBe('trust');
  // Exactly what would run: each hook's command, each server's command line.
  expect(approval.action).toContain(`echo ran > ${m.sessionStart}`);
  expect(approval.action).toContain(`echo ran > ${m.promptSubmit}`);
  expect(approval.action).toContain(`sh -c 'echo ran > ${m.server}'`);
  await host.approve(approval.id, 'deny');
  expect((await runEnd(follow)).status).toBe('done');
  for (const path of Object.values(m)) expect(existsSync(path), path).toBe(false);
  expect(JSON.stringify(eventsOfType(follow, 'notice'))).toContain('user-level settings only');
});

test('trusted at the computer, the repository’s hooks run; a changed hook asks again, and “from now on” trusts the new one', async () => {
  const shown = await host.cli(['trust', repo, '--yes']);
  expect(shown).toContain(`hook SessionStart (.claude/settings.json): echo ran > ${markers().sessionStart}`);
  expect(shown).toContain('Trusted for Claude Code, as shown, until it changes.');
  model.model.script([{ text: 'Hello.' }]);
  const { follow } = await host.newSession('claude-code', 'hello', repo);
  expect((await runEnd(follow)).status).toBe('done');
  expect(eventsOfType(follow, 'approval.requested')).toHaveLength(0);
  // Loaded as Claude Code loads it: its hooks ran (they are the person's to have trusted).
  expect(readFileSync(markers().sessionStart, 'utf8')).toBe('ran\n');
  expect(readFileSync(markers().promptSubmit, 'utf8')).toBe('ran\n');
  expect(readFileSync(markers().server, 'utf8')).toBe('ran\n');

  // A pull changes a hook: the next session asks again, saying so, before anything runs.
  clearMarkers();
  writeRepository('changed');
  model.model.script([{ text: 'Hello again.' }]);
  const again = await host.newSession('claude-code', 'hello', repo);
  const stop = await firstStop(again.follow);
  expect(stop.type).toBe('approval.requested');
  const approval = stop.approval as Approval;
  expect(approval.action).toMatch(/^It changed since it was trusted \(this computer\)\.\n/);
  expect(approval.action).toContain(`echo changed > ${markers().sessionStart}`);
  expect(existsSync(markers().sessionStart)).toBe(false);
  await host.approve(approval.id, 'allow', '--always');
  expect((await runEnd(again.follow)).status).toBe('done');
  expect(readFileSync(markers().sessionStart, 'utf8')).toBe('changed\n');
  const listed = JSON.parse(await host.cli(['trust', '--list', '--json'])) as { folder: string; family: string }[];
  expect(listed).toEqual([expect.objectContaining({ folder: repo, family: 'claude-code' })]);
  await host.cli(['trust', '--revoke', repo]);
  expect(JSON.parse(await host.cli(['trust', '--list', '--json']))).toEqual([]);
});
