import { expect, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geminiAgent } from '../support/acp-adapters.js';
import { eventually, tether } from '../support/host-process.js';
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

test('its modes, models and commands are listed; a model is taken; its turns’ usage is counted, and a budget holds the next message until it is raised', async () => {
  model.model.script([{ text: 'Ready.' }]);
  const { id, follow } = await host.newSession('gemini', 'get ready');
  const first = await runEnd(follow);
  expect(first.status).toBe('done');
  // Gemini CLI says what a turn used (`_meta.quota` in the prompt's answer).
  expect(first.usageReported).toBeUndefined();
  expect((first.usage as { inputTokens: number }).inputTokens).toBeGreaterThan(0);
  const controls = await eventually(async () => {
    const listed = JSON.parse(await host.cli(['sessions', 'commands', id, '--json'])) as {
      commands: { name: string }[];
      modes: { id: string }[];
      models: { id: string }[];
    };
    return listed.commands.length > 0 ? listed : undefined;
  });
  expect(controls.commands.map((c) => c.name)).toEqual(expect.arrayContaining(['init', 'memory show']));
  expect(controls.modes.map((m) => m.id)).toEqual(expect.arrayContaining(['default', 'autoEdit', 'plan']));
  // Its `yolo` would run every command it decides on without asking: never offered, never taken.
  expect(controls.modes.map((m) => m.id)).not.toContain('yolo');
  const yolo = await tether(host.dataDir, ['sessions', 'mode', id, 'yolo']);
  expect(yolo.code).not.toBe(0);
  expect(yolo.stderr).toContain('yolo');
  expect(controls.models.map((m) => m.id)).toEqual(expect.arrayContaining(['gemini-2.5-pro']));
  expect(await host.cli(['sessions', 'model', id, 'gemini-2.5-pro'])).toBe('The model is now gemini-2.5-pro.\n');

  // What it spent is the budget: the next message waits, said, and goes when the budget is raised.
  const spent = (
    JSON.parse(await host.cli(['sessions', '--json'])) as {
      id: string;
      activity: { inputTokens: number; outputTokens: number };
    }[]
  ).find((s) => s.id === id)!.activity;
  await host.cli(['sessions', 'budget', id, '--tokens', String(spent.inputTokens + spent.outputTokens)]);
  const held = model.model.turns().length;
  await host.send(id, 'one more thing');
  const waiting = await follow.waitFor((e) => e.type === 'session.waiting');
  expect(waiting.reason).toBe('budget');
  expect(String(waiting.text)).toMatch(/^Budget reached: \d+ of \d+ tokens spent\.$/);
  expect(model.model.turns()).toHaveLength(held);
  model.model.script([{ text: 'On the pro model.' }]);
  expect(await host.cli(['sessions', 'budget', id, '--tokens', '1000000'])).toBe('Budget set. The session goes on.\n');
  expect((await runEnd(follow, 2)).status).toBe('done');
  expect(assistantText(follow)).toContain('On the pro model.');
  expect(model.model.turns().at(-1)?.path).toContain('gemini-2.5-pro');
});
