import { expect, test } from '@playwright/test';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AnthropicStandIn } from '../support/anthropic-stand-in.js';
import { startAnthropicStandIn } from '../support/anthropic-stand-in.js';
import { claudeCodeAgent, claudeTranscript, descendants } from '../support/acp-adapters.js';
import { eventually } from '../support/host-process.js';
import type { AdapterHost } from '../support/adapter-host.js';
import { assistantText, eventsOfType, nthApproval, runEnd, startAdapterHost } from '../support/adapter-host.js';

/**
 * Claude Code as people install it (`@zed-industries/claude-code-acp`, pinned in
 * e2e/package.json; it runs the Claude Code CLI it bundles), run by a real `tether start` and
 * driven through the control CLI, against a loopback stand-in for the Anthropic Messages API that
 * scripts what the model says and records what it was sent. With Tether offering terminals and
 * files, the adapter turns off Claude Code's own Bash, Edit and Write and offers its
 * `mcp__acp__*` tools, which ask permission and then act through Tether.
 */
// Serial on one host; a real agent under a loaded machine (CI's 2 cores) can take tens of seconds a test.
test.describe.configure({ mode: 'serial', timeout: 120_000 });

let model: AnthropicStandIn;
let host: AdapterHost;

test.beforeAll(async () => {
  model = await startAnthropicStandIn();
  host = await startAdapterHost((dir) => ({ 'claude-code': claudeCodeAgent(model, join(dir, 'claude-home')) }));
});

test.afterAll(async () => {
  await host?.stop();
  await model?.close();
});

test.afterEach(() => {
  model.model.clear();
});

const bash = (command: string) => ({
  tool: 'mcp__acp__Bash',
  input: { command, timeout: 60_000, description: 'Run the command' },
});

/** The messages of the last turn the model was sent, as text. */
const lastTurnMessages = () => JSON.stringify(model.model.turns().at(-1)?.body.messages ?? []);

test('a reply streams from the model to the session', async () => {
  model.model.script([{ text: ['Hello ', 'from ', 'Claude.'] }]);
  const { follow } = await host.newSession('claude-code', 'say hello');
  expect((await runEnd(follow)).status).toBe('done');
  expect(eventsOfType(follow, 'message.delta').length).toBeGreaterThan(0);
  expect(assistantText(follow)).toBe('Hello from Claude.');
  expect(lastTurnMessages()).toContain('say hello');
});

test('a shell command is shown whole, asked once, run through the shell in the folder, and its output reaches the model', async () => {
  const command = 'echo acp-ok > proof.txt && printf \'%s\\n\' "$(pwd)" && cat proof.txt';
  model.model.script([{ text: 'Running it.' }, bash(command)], [{ text: 'It ran.' }]);
  const { follow } = await host.newSession('claude-code', 'write the proof');
  const approval = await nthApproval(follow);
  expect(approval.kind).toBe('shell');
  expect(approval.action.split('\n')[0]).toBe(`Claude Code asks: \`${command}\``);
  expect(approval.action).toContain(`command: ${command}`);
  expect(approval.action).toContain('allow once → “Allow”');
  expect(approval.action).toContain('always, for every session of Claude Code → “Always Allow”');
  await host.approve(approval.id, 'allow');
  expect((await runEnd(follow)).status).toBe('done');
  // Asked once: the terminal the adapter then opens is exactly what was allowed.
  expect(eventsOfType(follow, 'approval.requested')).toHaveLength(1);
  expect(readFileSync(join(host.project, 'proof.txt'), 'utf8')).toBe('acp-ok\n');
  expect(model.toolResults().at(-1)).toContain(`${host.project}\nacp-ok`);
  const finished = eventsOfType(follow, 'tool.finished').at(-1)!;
  expect(finished.ok).toBe(true);
  expect(String(finished.output)).toContain('acp-ok');
  expect(assistantText(follow)).toContain('It ran.');
});

test('a file edit is shown as its diff, applied through Tether, and reported to the model', async () => {
  const file = join(host.project, 'notes.txt');
  writeFileSync(file, 'old line\nsame\n');
  model.model.script(
    [{ tool: 'mcp__acp__Edit', input: { file_path: file, old_string: 'old line', new_string: 'new line' } }],
    [{ text: 'Edited.' }],
  );
  const { follow } = await host.newSession('claude-code', 'edit the notes');
  const approval = await nthApproval(follow);
  expect(approval.kind).toBe('edit');
  // The adapter's diff is of the replaced part; the approval shows the change to the whole file.
  expect(approval.action).toContain('-old line\n+new line\n same');
  await host.approve(approval.id, 'allow');
  expect((await runEnd(follow)).status).toBe('done');
  expect(readFileSync(file, 'utf8')).toBe('new line\nsame\n');
  expect(eventsOfType(follow, 'approval.requested')).toHaveLength(1);
  expect(assistantText(follow)).toContain('Edited.');
});

test('a deny runs nothing and reads as a denial', async () => {
  model.model.script([bash('echo never > never.txt')], [{ text: 'not expected' }]);
  const { follow } = await host.newSession('claude-code', 'try to write');
  const approval = await nthApproval(follow);
  const turns = model.model.turns().length;
  await host.approve(approval.id, 'deny');
  const end = await runEnd(follow);
  expect(end.status).toBe('done');
  expect(eventsOfType(follow, 'tool.finished').map((e) => e.output)).toContain('Denied: not run.');
  expect(JSON.stringify(follow.events)).not.toMatch(/interrupted|ended before the agent finished/i);
  expect(existsSync(join(host.project, 'never.txt'))).toBe(false);
  // The adapter answers a deny by ending the turn: the model is not asked again.
  expect(model.model.turns()).toHaveLength(turns);
});

test('an interrupt stops the model’s reply mid-stream; the session takes the next message', async () => {
  model.model.script([{ text: 'Thinking about it' }, { hold: true }], [{ text: 'Next.' }]);
  const { id, follow } = await host.newSession('claude-code', 'think long');
  await follow.waitFor((e) => e.type === 'message.delta');
  await host.interrupt(id);
  expect((await runEnd(follow)).status).toBe('interrupted');
  await host.send(id, 'go on');
  expect((await runEnd(follow, 2)).status).toBe('done');
  expect(assistantText(follow)).toContain('Next.');
});

test('Claude Code killed mid-turn ends the run with a notice; the next message resumes its session', async () => {
  // Claude Code keeps its transcript as turns end: the turn it is killed in is lost, those before are not.
  model.model.script([{ text: 'Noted.' }], [{ text: 'Working on it' }, { hold: true }], [{ text: 'Back again.' }]);
  const adapters = () => descendants(host.process.child.pid!).filter((p) => p.command.includes('claude-code-acp'));
  const before = new Set(adapters().map((p) => p.pid));
  const { id, follow } = await host.newSession('claude-code', 'remember the word kumquat');
  expect((await runEnd(follow)).status).toBe('done');
  await host.send(id, 'now think long');
  await follow.waitFor((e) => e.type === 'message.delta', { nth: 2 });
  // This session's own adapter process (each session keeps its own between runs).
  const agent = adapters().filter((p) => !before.has(p.pid));
  expect(agent).toHaveLength(1);
  process.kill(agent[0]!.pid, 'SIGKILL');
  const end = await runEnd(follow, 2);
  expect(end.status).toBe('error');
  expect(String(end.error)).toMatch(/Claude Code stopped: /);
  await host.send(id, 'what was the word?');
  expect((await runEnd(follow, 3)).status).toBe('done');
  expect(assistantText(follow)).toContain('Back again.');
  // Resumed, not fresh: the model is sent the conversation from before the crash.
  expect(lastTurnMessages()).toContain('remember the word kumquat');
  expect(JSON.stringify(eventsOfType(follow, 'notice'))).not.toMatch(/afresh|could not load/);
});

test('after the host restarts, the next message continues the same Claude Code session', async () => {
  model.model.script([{ text: 'Hello, Ada.' }]);
  const { id, follow } = await host.newSession('claude-code', 'my name is Ada');
  expect((await runEnd(follow)).status).toBe('done');
  // Claude Code writes its transcript in the background (every 100 ms) and not when it is stopped:
  // a host stopped in that moment restarts into a session without the last turn.
  await eventually(() => (claudeTranscript(join(host.dir, 'claude-home')).includes('Hello, Ada.') ? true : undefined));
  await host.restart();
  const again = host.follow(id);
  model.model.script([{ text: 'You are Ada.' }]);
  await host.send(id, 'what is my name?');
  expect((await runEnd(again, 2)).status).toBe('done');
  expect(assistantText(again)).toContain('You are Ada.');
  const messages = lastTurnMessages();
  expect(messages).toContain('my name is Ada');
  expect(messages).toContain('Hello, Ada.');
  expect(JSON.stringify(eventsOfType(again, 'notice'))).not.toMatch(/afresh|could not load/);
});

/** The Claude Code CLI the adapter runs, as a person runs it at the computer. */
const CLAUDE_CLI = fileURLToPath(new URL('../../node_modules/@anthropic-ai/claude-agent-sdk/cli.js', import.meta.url));

test('a session started at the computer is listed, continued in Tether, and goes on with its conversation', async () => {
  // At the desk: Claude Code itself, in the project folder, with the same home as the adapter's.
  const agent = claudeCodeAgent(model, join(host.dir, 'claude-home'));
  model.model.script([{ text: 'Noted: the word is mango.' }]);
  // Its stdin closed, as a person's `claude -p` in a script has it (it reads stdin to its end).
  const run = promisify(execFile)(process.execPath, [CLAUDE_CLI, '-p', 'remember the word mango'], {
    cwd: host.project,
    env: { ...process.env, ...agent.env },
    timeout: 90_000,
  });
  run.child.stdin?.end();
  const desk = await run;
  expect(desk.stdout).toContain('Noted: the word is mango.');

  // On the phone's side: the agent's own sessions in the folder, and the one from the desk continued.
  const list = JSON.parse(await host.cli(['agents', 'sessions', 'claude-code', '--cwd', host.project, '--json'])) as {
    canContinue: boolean;
    sessions: { id: string; title: string; cwd: string }[];
  };
  expect(list.canContinue).toBe(true);
  const fromDesk = list.sessions.find((s) => s.title.includes('mango'));
  expect(fromDesk, JSON.stringify(list)).toBeDefined();
  const session = JSON.parse(
    await host.cli(['agents', 'continue', 'claude-code', fromDesk!.id, '--cwd', host.project, '--json']),
  ) as { id: string };
  const follow = host.follow(session.id);
  // Its history is in the transcript.
  await eventually(() => (JSON.stringify(follow.events).includes('Noted: the word is mango.') ? true : undefined));

  // The loading is a run of its own: the next message is the run after it.
  await runEnd(follow);
  model.model.script([{ text: 'The word was mango.' }]);
  await host.send(session.id, 'which word did I ask you to remember?');
  expect((await runEnd(follow, 2)).status).toBe('done');
  expect(assistantText(follow)).toContain('The word was mango.');
  // The agent's session, loaded: the model is sent the conversation from the desk.
  const messages = lastTurnMessages();
  expect(messages).toContain('remember the word mango');
  expect(messages).toContain('Noted: the word is mango.');
});

interface Controls {
  commands: { name: string; description: string; source: string }[];
  modes: { id: string; name: string }[];
  mode?: string;
  models: { id: string; name: string }[];
  model?: string;
}

test('its slash commands, modes and models are listed; plan mode and another model are taken, and a /command goes to it', async () => {
  // Four turns of a real Claude Code: on CI's 2 loaded cores, each can take tens of seconds.
  test.setTimeout(300_000);
  model.model.script([{ text: 'Ready.' }]);
  const { id, follow } = await host.newSession('claude-code', 'get ready');
  expect((await runEnd(follow)).status).toBe('done');
  // Announced by Claude Code after its session started (`available_commands_update`).
  const controls = await eventually(async () => {
    const listed = JSON.parse(await host.cli(['sessions', 'commands', id, '--json'])) as Controls;
    return listed.commands.length > 0 ? listed : undefined;
  });
  expect(controls.commands.map((c) => c.name)).toEqual(expect.arrayContaining(['compact', 'init', 'review']));
  expect(controls.commands.every((c) => c.source === 'agent')).toBe(true);
  expect(controls.modes.map((m) => m.id)).toEqual(expect.arrayContaining(['default', 'acceptEdits', 'plan']));
  expect(controls.mode).toBe('default');
  expect(controls.models.map((m) => m.id)).toEqual(expect.arrayContaining(['default', 'opus', 'haiku']));

  expect(await host.cli(['sessions', 'model', id, 'haiku'])).toBe('The model is now Haiku.\n');
  model.model.script([{ text: 'On Haiku.' }]);
  await host.send(id, 'which model are you?');
  expect((await runEnd(follow, 2)).status).toBe('done');
  expect(String(model.model.turns().at(-1)!.body.model)).toMatch(/haiku/);

  // In plan mode Claude Code plans with a model of its own choosing; it tells the model so.
  expect(await host.cli(['sessions', 'mode', id, 'plan'])).toBe('The mode is now Plan Mode.\n');
  const show = await host.cli(['sessions', 'show', id]);
  expect(show.split('\n')[0]).toBe('Model: claude-code on Haiku · mode: Plan Mode');
  model.model.script([{ text: 'Here is my plan.' }]);
  await host.send(id, 'what would you change?');
  expect((await runEnd(follow, 3)).status).toBe('done');
  expect(JSON.stringify(model.model.turns().at(-1)!.body)).toMatch(/plan mode/i);

  // Its own command is its own: sent to it as the text it is, never refused as Tether's.
  model.model.script([{ text: 'Compacted.' }], [{ text: 'Compacted.' }]);
  await host.send(id, '/compact');
  expect((await runEnd(follow, 4)).status).toBe('done');
});
