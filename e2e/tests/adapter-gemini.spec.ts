import { expect, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geminiAgent } from '../support/acp-adapters.js';
import type { AdapterHost } from '../support/adapter-host.js';
import { assistantText, eventsOfType, nthApproval, runEnd, startAdapterHost } from '../support/adapter-host.js';
import type { GeminiStandIn } from '../support/gemini-stand-in.js';
import { startGeminiStandIn } from '../support/gemini-stand-in.js';

/**
 * Gemini CLI as people install it (`@google/gemini-cli --experimental-acp`, pinned in
 * e2e/package.json), run by a real `tether start` and driven through the control CLI, against a
 * loopback stand-in for the Gemini API. Like Codex, it runs its commands itself after asking.
 */
// Serial on one host; a real agent under a loaded machine (CI's 2 cores) can take tens of seconds a test.
test.describe.configure({ mode: 'serial', timeout: 120_000 });

let model: GeminiStandIn;
let host: AdapterHost;

test.beforeAll(async () => {
  model = await startGeminiStandIn();
  host = await startAdapterHost((dir) => ({ gemini: geminiAgent(model, join(dir, 'gemini-home')) }));
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test.afterEach(() => {
  model.model.clear();
});

const shell = (command: string) => ({ tool: 'run_shell_command', input: { command, description: 'Run it' } });

test('a reply streams from the model to the session', async () => {
  model.model.script([{ text: ['Hello ', 'from ', 'Gemini.'] }]);
  const { follow } = await host.newSession('gemini', 'say hello');
  expect((await runEnd(follow)).status).toBe('done');
  expect(eventsOfType(follow, 'message.delta').length).toBeGreaterThan(0);
  expect(assistantText(follow)).toBe('Hello from Gemini.');
  expect(JSON.stringify(model.model.turns().at(-1)?.body.contents)).toContain('say hello');
});

test('a command is shown whole, allowed once, run in the folder, and its output reaches the model', async () => {
  const command = 'echo gemini-ok > proof.txt && pwd && cat proof.txt';
  model.model.script([shell(command)], [{ text: 'It ran.' }]);
  const { follow } = await host.newSession('gemini', 'write the proof');
  const approval = await nthApproval(follow);
  expect(approval.kind).toBe('shell');
  expect(approval.action.split('\n')[0]).toBe(`Gemini CLI asks: ${command}`);
  expect(approval.action).toContain('allow once → “Allow”');
  // Gemini's allow-always is its own, named in its words beside Tether's label.
  expect(approval.always).toBe('Allow for this session');
  await host.approve(approval.id, 'allow');
  expect((await runEnd(follow)).status).toBe('done');
  expect(readFileSync(join(host.project, 'proof.txt'), 'utf8')).toBe('gemini-ok\n');
  expect(model.toolResults().at(-1)).toContain(`${host.project}\\ngemini-ok`);
  expect(assistantText(follow)).toContain('It ran.');
});

test('a deny runs nothing and reads as a denial', async () => {
  model.model.script([shell('echo never > never.txt')], [{ text: 'Understood.' }]);
  const { follow } = await host.newSession('gemini', 'try to write');
  const approval = await nthApproval(follow);
  await host.approve(approval.id, 'deny');
  const end = await runEnd(follow);
  expect(end.status).toBe('done');
  expect(eventsOfType(follow, 'tool.finished').map((e) => e.output)).toContain('Denied: not run.');
  expect(JSON.stringify(follow.events)).not.toMatch(/interrupted|ended before the agent finished/i);
  expect(existsSync(join(host.project, 'never.txt'))).toBe(false);
});
