import type { Approval, SessionEvent } from '@tether/shared-protocol';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { agentsCommand } from '../../cli/commands/agents.js';
import { approveCommand } from '../../cli/commands/approvals.js';
import { sessionsNewCommand } from '../../cli/commands/sessions.js';
import { connectDevice, pairDevice } from '../../../test/support/remote-device.js';
import { collector, runCommand } from '../../../test/support/run-command.js';
import { startApprovalNotice } from '../../cli/approval-lines.js';
import { TranscriptPrinter } from '../../cli/transcript-printer.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../../test/support/test-host.js';
import { Host } from '../../host.js';
import type { AcpLimits } from './acp-backend.js';

const FIXTURE = fileURLToPath(new URL('../../../test/fixtures/acp-scripted-agent.mjs', import.meta.url));

let t: TestHost | undefined;
const cleanups: (() => void)[] = [];

afterEach(async () => {
  await t?.close();
  t = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

type Of<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

/**
 * A real host whose agents.json names the scripted agent `scripted` (run by this Node, advertising
 * session load, keeping its sessions in a folder of its own) and `missing`, whose command is not
 * there.
 */
async function hostWithAgent(
  options: { limits?: Partial<AcpLimits>; remote?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<TestHost> {
  const config = mkdtempSync(join(tmpdir(), 'tether-acp-'));
  cleanups.push(() => rmSync(config, { recursive: true, force: true }));
  const agentsConfig = join(config, 'agents.json');
  writeFileSync(
    agentsConfig,
    JSON.stringify({
      agents: {
        scripted: {
          title: 'Scripted',
          command: process.execPath,
          args: [FIXTURE],
          env: { SCRIPTED_ACP_LOAD: '1', SCRIPTED_ACP_STATE_DIR: join(config, 'state') },
          passEnv: ['SCRIPTED_KEY'],
          allowEnv: ['GREETING'],
        },
        missing: { command: 'tether-no-such-acp-agent' },
      },
    }),
  );
  t = await startTestHost({
    agentsConfig,
    ...(options.limits ? { acpLimits: options.limits } : {}),
    ...(options.remote ? { remote: LOCAL_REMOTE } : {}),
    ...(options.env ? { env: options.env } : {}),
  });
  return t;
}

async function start(host: TestHost, text: string): Promise<string> {
  const created = await host.host.parts.sessions.create({ cwd: host.project, text, kind: 'acp', model: 'scripted' });
  if (!created.ok) throw new Error(created.error.message);
  return created.value.id;
}

const finished = (host: TestHost, id: string, nth = 1) => {
  let seen = 0;
  return host.waitFor(id, (e) => e.type === 'run.finished' && ++seen === nth) as Promise<Of<'run.finished'>>;
};

const messages = (host: TestHost, id: string) =>
  host
    .events(id)
    .filter((e): e is Of<'message'> => e.type === 'message' && e.role === 'assistant')
    .map((e) => e.text);

const approvalOf = async (host: TestHost, id: string, nth = 1): Promise<Approval> => {
  let seen = 0;
  const event = await host.waitFor(id, (e) => e.type === 'approval.requested' && ++seen === nth);
  return (event as Of<'approval.requested'>).approval;
};

describe('an ACP agent as a session back-end', () => {
  it('maps streamed text, a plan and a tool call with its diff into the log', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'say hello there\nplan read it | change it\ntool-diff notes.txt\nplan-done\nsay bye');
    const end = await finished(host, id);
    expect(end.status).toBe('done');
    const events = host.events(id);
    expect(events.some((e) => e.type === 'message.delta')).toBe(true);
    expect(messages(host, id)).toEqual(['hello there', 'bye']);

    const plans = events.filter((e): e is Of<'plan'> => e.type === 'plan');
    expect(plans).toHaveLength(2);
    expect(plans[0]!.planId).toBe(plans[1]!.planId);
    expect(plans[0]!.entries).toEqual([
      { content: 'read it', status: 'in_progress', priority: 'medium' },
      { content: 'change it', status: 'pending', priority: 'medium' },
    ]);
    expect(plans[1]!.entries.every((entry) => entry.status === 'completed')).toBe(true);

    const started = events.find((e): e is Of<'tool.started'> => e.type === 'tool.started')!;
    expect(started).toMatchObject({ title: 'Edit notes.txt', kind: 'edit' });
    expect(started.locations?.[0]?.path).toBe(join(host.project, 'notes.txt'));
    const done = events.find((e): e is Of<'tool.finished'> => e.type === 'tool.finished')!;
    expect(done.toolCallId).toBe(started.toolCallId);
    expect(done.ok).toBe(true);
    expect(done.diff).toContain('-old line\n+new line\n');
    // The agent's own ids never become ours.
    expect(started.toolCallId).not.toBe('call_1');
  });

  it('a run reports no usage, so it reads as unknown, not as 0 tokens', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'say hi');
    const end = await finished(host, id);
    expect(end.usageReported).toBe(false);
    expect(host.host.parts.sessions.get(id)!.activity).toMatchObject({ unreportedRuns: 1, inputTokens: 0 });
  });

  it('asks for permission with the whole action and the agent’s options; an answer from the CLI lets the write through', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-edit notes.txt rewritten\\nby the agent\nsay after');
    const approval = await approvalOf(host, id);
    expect(approval.action).toContain('Scripted asks: Write notes.txt');
    expect(approval.action).toContain('-first line\n-second line\n+rewritten\n+by the agent');
    expect(approval.action).toContain('allow once → “Allow”');
    expect(approval.action).toContain('deny → “Reject”');
    expect(host.host.parts.sessions.get(id)!.status).toBe('waiting');

    const answered = await runCommand(approveCommand, ['--data-dir', join(host.dir, 'data'), approval.id, 'allow']);
    expect(answered.code).toBe(0);
    expect((await finished(host, id)).status).toBe('done');
    expect(readFileSync(join(host.project, 'notes.txt'), 'utf8')).toBe('rewritten\nby the agent');
    expect(messages(host, id).join('')).toContain('edit allowed (yes) and written');
    // The write was exactly what was approved: it did not ask a second time.
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('the CLI transcript shows the plan as a checklist and the diff, escaped', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'plan read \x1b[2Jit | write it\ntool-diff notes.txt');
    await finished(host, id);
    const out = collector();
    const printer = new TranscriptPrinter(out.stream, false);
    for (const event of host.events(id)) printer.print(event);
    expect(out.text()).toContain('Plan:\n  ▶ read ⟨ESC⟩[2Jit\n  ☐ write it\n');
    expect(out.text()).toContain('  ┊ -old line\n  ┊ +new line\n');
  });

  it('“allow for this session” answers the agent’s allow-once (its allow-always may outlive the session)', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-edit notes.txt again');
    const approval = await approvalOf(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-session' }, { kind: 'local', label: 'test' });
    await finished(host, id);
    expect(messages(host, id).join('')).toContain('edit allowed (yes) and written');
  });

  it('an edit through a link that leads out of the folder says so in the approval, and is refused even when allowed', async () => {
    const host = await hostWithAgent();
    const outside = join(host.dir, 'outside.txt');
    writeFileSync(outside, 'keep me');
    symlinkSync(outside, join(host.project, 'link.txt'));
    const id = await start(host, 'ask-edit link.txt overwritten');
    const approval = await approvalOf(host, id);
    // The person sees that this write would not land in the folder before answering.
    expect(approval.action).toMatch(/change \S*link\.txt \(.* is outside the session folder/);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    await finished(host, id);
    expect(messages(host, id).join('')).toContain('edit allowed (yes) but the write failed');
    expect(readFileSync(outside, 'utf8')).toBe('keep me');
  });

  it('a denial answers the agent’s reject option and nothing is written', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-edit notes.txt changed');
    const approval = await approvalOf(host, id);
    expect(
      host.host.parts.approvals.answer(approval.id, { decision: 'deny' }, { kind: 'local', label: 'test' }).ok,
    ).toBe(true);
    expect((await finished(host, id)).status).toBe('done');
    expect(messages(host, id).join('')).toContain('edit not allowed (no)');
    expect(readFileSync(join(host.project, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');
  });

  it('auto-approve answers the agent’s permission request without asking', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'wait');
    host.host.parts.sessions.setAutoApprove(id, true);
    host.host.parts.sessions.interrupt(id);
    await finished(host, id);
    host.host.parts.sessions.send(id, 'ask-edit made.txt auto');
    expect((await finished(host, id, 2)).status).toBe('done');
    expect(readFileSync(join(host.project, 'made.txt'), 'utf8')).toBe('auto');
    expect(host.events(id).some((e) => e.type === 'approval.requested')).toBe(false);
  });

  it('serves file reads in the session folder and refuses reads and writes outside it', async () => {
    const host = await hostWithAgent();
    const outside = join(host.dir, 'secret.txt');
    writeFileSync(outside, 'top secret');
    const id = await start(host, `read notes.txt\nread ${outside}\nread ../secret.txt\nwrite ${outside} pwned`);
    expect((await finished(host, id)).status).toBe('done');
    // One message: the agent's chunks with no tool call between them.
    const said = messages(host, id).join('');
    expect(said).toContain('read: first line\nsecond line\n');
    expect(said.match(/(read|write) failed: [^\n]*? is outside the session folder/g)).toHaveLength(3);
    expect(said).not.toContain('top secret');
    expect(readFileSync(outside, 'utf8')).toBe('top secret');
    const notices = host.events(id).filter((e): e is Of<'notice'> => e.type === 'notice');
    expect(notices.filter((n) => n.text.includes('outside the session folder'))).toHaveLength(3);
    expect(host.events(id).some((e) => e.type === 'approval.requested')).toBe(false);
  });

  it('a read of a hidden entry of the home folder asks first, as Tether’s own read tool does', async () => {
    const home = realpathSync(mkdtempSync(join(tmpdir(), 'tether-acp-home-')));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    writeFileSync(join(home, '.some-token'), 'tok-123');
    writeFileSync(join(home, 'plain.txt'), 'plain words');
    const host = await hostWithAgent({ env: { HOME: home } });
    const created = await host.host.parts.sessions.create({
      cwd: home,
      text: 'read plain.txt\nread .some-token\nread .some-token\nread .some-token',
      kind: 'acp',
      model: 'scripted',
    });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    const first = await approvalOf(host, id);
    expect(first.tool).toBe('read_file');
    expect(first.action).toContain(`Read ${join(home, '.some-token')}`);
    host.host.parts.approvals.answer(first.id, { decision: 'deny' }, { kind: 'local', label: 'test' });
    const second = await approvalOf(host, id, 2);
    host.host.parts.approvals.answer(second.id, { decision: 'allow-session' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    const said = messages(host, id).join('');
    expect(said).toContain('read: plain words');
    expect(said).toContain('read failed: not read: the person denied this read');
    // Allowed for the session: the third read of that entry does not ask again.
    expect(said.match(/read: tok-123/g)).toHaveLength(2);
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(2);
  });

  it('a command the agent runs asks as shell, runs in the session folder, and shows its output', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'run cat notes.txt');
    const approval = await approvalOf(host, id);
    expect(approval.tool).toBe('shell');
    expect(approval.action).toBe('cat notes.txt');
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(messages(host, id).join('')).toContain('command ran (unasked), exit 0');
    const outputs = host.events(id).filter((e): e is Of<'tool.finished'> => e.type === 'tool.finished');
    expect(outputs.some((e) => e.output.includes('second line'))).toBe(true);
  });

  it('a shell line sent as Zed’s Claude Code adapter sends it asks once, shows that line, and runs through the shell in the folder', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-line echo acp-ok > proof.txt');
    const approval = await approvalOf(host, id);
    expect(approval.tool).toBe('shell');
    expect(approval.action).toContain('\ncommand: echo acp-ok > proof.txt\n');
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(messages(host, id).join('')).toContain('command ran (yes), exit 0');
    // The redirect was the shell's, in the session folder.
    expect(readFileSync(join(host.project, 'proof.txt'), 'utf8')).toBe('acp-ok\n');
    // The terminal/create was the line the person allowed: it did not ask a second time.
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('a shell line sent unasked asks as exactly that line, and the transcript row shows it', async () => {
    const host = await hostWithAgent();
    const id = await start(host, "line echo one && printf '%s\\n' two > two.txt");
    const approval = await approvalOf(host, id);
    // The adapter's marker variable is shown on a line of its own; it is not the agent's own setting.
    expect(approval).toMatchObject({
      tool: 'shell',
      action: "echo one && printf '%s\\n' two > two.txt\nset by the adapter on every command: CLAUDECODE=1",
    });
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    const started = host
      .events(id)
      .find((e): e is Of<'tool.started'> => e.type === 'tool.started' && e.tool === 'shell')!;
    expect(started.title).toBe("echo one && printf '%s\\n' two > two.txt");
    const done = host
      .events(id)
      .find((e): e is Of<'tool.finished'> => e.type === 'tool.finished' && e.tool === 'shell')!;
    expect(done).toMatchObject({ ok: true, output: 'one\n' });
    expect(readFileSync(join(host.project, 'two.txt'), 'utf8')).toBe('two\n');
  });

  it('an empty shell line is refused without asking', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'line  \nsay after');
    expect((await finished(host, id)).status).toBe('done');
    expect(messages(host, id).join('')).toContain('command refused (unasked): the command is empty');
    expect(host.events(id).some((e) => e.type === 'approval.requested')).toBe(false);
  });

  it('a shell line under an “allow for this session” answer runs again without asking', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-line echo again >> log.txt\nline echo again >> log.txt');
    const approval = await approvalOf(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-session' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(readFileSync(join(host.project, 'log.txt'), 'utf8')).toBe('again\nagain\n');
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('a variable that loads code (BASH_ENV) is refused, even for the command the person just allowed once', async () => {
    const host = await hostWithAgent();
    const marker = join(host.dir, 'hidden-ran');
    const hidden = join(host.dir, 'hidden.sh');
    writeFileSync(hidden, `touch ${marker}\n`);
    const id = await start(host, `ask-run-env BASH_ENV=${hidden} echo hello`);
    const approval = await approvalOf(host, id);
    expect(approval.action).toContain('command: echo hello');
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(existsSync(marker)).toBe(false);
    // The agent got a clear error, and the transcript says why.
    expect(messages(host, id).join('')).toMatch(/command refused \(yes\): .*BASH_ENV/);
    const notices = host.events(id).filter((e): e is Of<'notice'> => e.type === 'notice');
    expect(notices.some((n) => n.level === 'warning' && n.text.includes('BASH_ENV'))).toBe(true);
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('a variable that loads code is refused under an “allow for this session” rule for the command', async () => {
    const host = await hostWithAgent();
    const marker = join(host.dir, 'hidden-ran');
    const hidden = join(host.dir, 'hidden.sh');
    writeFileSync(hidden, `touch ${marker}\n`);
    const id = await start(host, `ask-run echo hello\nrun-env BASH_ENV=${hidden} echo hello`);
    const approval = await approvalOf(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-session' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(existsSync(marker)).toBe(false);
    expect(messages(host, id).join('')).toMatch(/command refused \(unasked\): .*BASH_ENV/);
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(1);
  });

  it('a variable not known to be inert (CC, TAR_OPTIONS) is refused unless the person allowed it for the agent, and the transcript says how', async () => {
    const host = await hostWithAgent();
    const marker = join(host.dir, 'compiler-ran');
    const compiler = join(host.dir, 'cc.sh');
    writeFileSync(compiler, `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    const id = await start(
      host,
      `ask-run-env CC=${compiler} "$CC" x.c\nrun-env TAR_OPTIONS=--to-command=sh tar -xf a.tar`,
    );
    const approval = await approvalOf(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(existsSync(marker)).toBe(false);
    const said = messages(host, id).join('');
    expect(said).toMatch(
      /command refused \(yes\): the environment variable CC is refused: only variables known to be inert/,
    );
    expect(said).toMatch(/command refused \(unasked\): the environment variable TAR_OPTIONS is refused/);
    const notices = host.events(id).filter((e): e is Of<'notice'> => e.type === 'notice');
    expect(notices.map((n) => n.text).join('\n')).toContain(
      'To let Scripted set it, add "allowEnv": ["CC"] to its entry in agents.json',
    );
  });

  it('an agent’s own variables are shown with the command, asked for even under a session rule, and allowed once only', async () => {
    const host = await hostWithAgent();
    const id = await start(
      host,
      'ask-run echo "$GREETING"\nrun-env GREETING=hi echo "$GREETING"\nrun-env GREETING=hi echo "$GREETING"',
    );
    const first = await approvalOf(host, id);
    expect(first.action).not.toContain('GREETING=');
    host.host.parts.approvals.answer(first.id, { decision: 'allow-session' }, { kind: 'local', label: 'test' });
    // The same command with a variable of the agent's: the rule does not cover it, and the
    // approval shows the variable.
    const second = await approvalOf(host, id, 2);
    // GREETING is not known to be inert: it passes because agents.json allows it, and says so.
    expect(second.action).toBe(
      'echo "$GREETING"\nenvironment from the agent: GREETING=hi\nallowed for this agent in agents.json ("allowEnv"): GREETING',
    );
    const row = host.events(id).filter((e): e is Of<'tool.started'> => e.type === 'tool.started' && e.tool === 'shell');
    expect(row.at(-1)!.title).toBe('echo "$GREETING"\nenvironment from the agent: GREETING=hi');
    expect(row.at(-1)!.input).toMatchObject({ env: { GREETING: 'hi' } });
    // No rule can be made for it: a later command with other values would pass under it.
    const forSession = host.host.parts.approvals.answer(
      second.id,
      { decision: 'allow-session' },
      { kind: 'local', label: 'test' },
    );
    expect(forSession.ok).toBe(false);
    expect(forSession.ok ? '' : forSession.error.message).toContain('its own environment variables');
    host.host.parts.approvals.answer(second.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    // Allowed once: the same again asks again.
    const third = await approvalOf(host, id, 3);
    expect(third.action).toBe(second.action);
    host.host.parts.approvals.answer(third.id, { decision: 'deny' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    const outputs = host.events(id).filter((e): e is Of<'tool.finished'> => e.type === 'tool.finished');
    expect(outputs.some((e) => e.ok && e.output === 'hi\n')).toBe(true);
    expect(messages(host, id).join('')).toContain('command refused (unasked): not run: the person denied this command');
    // The CLI shows the variables in the approval and in the transcript row.
    expect(startApprovalNotice(second)).toContain('  2 │ environment from the agent: GREETING=hi\n');
    const out = collector();
    const printer = new TranscriptPrinter(out.stream, false);
    for (const event of host.events(id)) printer.print(event);
    expect(out.text()).toContain('⏺ shell: echo "$GREETING"⟨LF⟩environment from the agent: GREETING=hi\n');
  });

  it('a prefix rule covers plain words in the folder and asks for anything else', async () => {
    const host = await hostWithAgent();
    writeFileSync(join(host.dir, 'secret.txt'), 'top secret');
    const id = await start(
      host,
      ['ask-run cat notes.txt', 'run cat notes.txt notes.txt', 'run cat notes.txt ../secret.txt', 'say end'].join('\n'),
    );
    const first = await approvalOf(host, id);
    host.host.parts.approvals.answer(
      first.id,
      { decision: 'allow-session', prefix: 'cat notes.txt' },
      { kind: 'local', label: 'test' },
    );
    // The second ran under the rule; the third names a file outside the folder and asks.
    const third = await approvalOf(host, id, 2);
    expect(third.action).toBe('cat notes.txt ../secret.txt');
    host.host.parts.approvals.answer(third.id, { decision: 'deny' }, { kind: 'local', label: 'test' });
    expect((await finished(host, id)).status).toBe('done');
    expect(messages(host, id).join('')).toContain('command ran (unasked), exit 0');
    expect(host.events(id).filter((e) => e.type === 'approval.requested')).toHaveLength(2);
  });

  it('a crash ends the run with the agent’s stderr; the next prompt starts it again and loads its session', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'whoami');
    await finished(host, id);
    expect(messages(host, id)[0]).toMatch(/^session scripted-\d+-1 \(new\), prompt 1$/);
    const session = /session (\S+)/.exec(messages(host, id)[0]!)![1]!;

    host.host.parts.sessions.send(id, 'crash');
    const crashed = await finished(host, id, 2);
    expect(crashed.status).toBe('error');
    expect(crashed.error).toContain('Scripted stopped: it exited with code 3');
    const notice = host.events(id).find((e): e is Of<'notice'> => e.type === 'notice' && e.text.includes('stderr'))!;
    expect(notice.level).toBe('error');
    expect(notice.text).toContain('scripted agent: crashing now');

    host.host.parts.sessions.send(id, 'whoami');
    expect((await finished(host, id, 3)).status).toBe('done');
    // The same ACP session, loaded by a new process; its replay is not logged a second time.
    expect(messages(host, id).at(-1)).toBe(`session ${session} (loaded), prompt 3`);
    expect(messages(host, id).some((text) => text.startsWith('(replayed'))).toBe(false);
  });

  it('after the host restarts, the next prompt loads the agent’s session it had', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tether-acp-restart-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const project = join(dir, 'project');
    mkdirSync(project);
    const agentsConfig = join(dir, 'agents.json');
    writeFileSync(
      agentsConfig,
      JSON.stringify({
        agents: {
          scripted: {
            command: process.execPath,
            args: [FIXTURE],
            env: { SCRIPTED_ACP_LOAD: '1', SCRIPTED_ACP_STATE_DIR: join(dir, 'state') },
          },
        },
      }),
    );
    const startHost = async () => {
      const started = await Host.start({ dataDir: join(dir, 'data'), env: {}, agentsConfig });
      if (!started.ok) throw new Error(started.error.message);
      return started.value;
    };
    const runToEnd = (host: Host, id: string, nth: number) =>
      new Promise<void>((resolve) => {
        const done = () => [...host.parts.log.readAll(id)].filter((e) => e.type === 'run.finished').length >= nth;
        if (done()) return resolve();
        const stop = host.parts.log.subscribe('restart-test', () => {
          if (!done()) return;
          stop();
          resolve();
        });
      });
    const said = (host: Host, id: string) =>
      [...host.parts.log.readAll(id)].flatMap((e) => (e.type === 'message' && e.role === 'assistant' ? [e.text] : []));

    const first = await startHost();
    const created = await first.parts.sessions.create({ cwd: project, text: 'whoami', kind: 'acp', model: 'scripted' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await runToEnd(first, id, 1);
    const session = /session (\S+) \(new\)/.exec(said(first, id)[0]!)![1]!;
    await first.close();

    const second = await startHost();
    try {
      second.parts.sessions.send(id, 'whoami');
      await runToEnd(second, id, 2);
      expect(said(second, id).at(-1)).toBe(`session ${session} (loaded), prompt 2`);
    } finally {
      await second.close();
    }
  });

  it('interrupting sends session/cancel and the agent stops; the agent is kept for the next prompt', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'say working\nwait\nsay never');
    await host.waitFor(id, (e) => e.type === 'message.delta');
    host.host.parts.sessions.interrupt(id);
    expect((await finished(host, id)).status).toBe('interrupted');
    expect(messages(host, id)).not.toContain('never');
    host.host.parts.sessions.send(id, 'whoami');
    await finished(host, id, 2);
    expect(messages(host, id).at(-1)).toMatch(/\(new\), prompt 2$/);
  });

  it('interrupting while a permission request waits cancels it, and nothing is written', async () => {
    const host = await hostWithAgent();
    const id = await start(host, 'ask-edit notes.txt never');
    const approval = await approvalOf(host, id);
    host.host.parts.sessions.interrupt(id);
    expect((await finished(host, id)).status).toBe('interrupted');
    expect(host.host.parts.approvals.pending(id)).toEqual([]);
    const late = host.host.parts.approvals.answer(
      approval.id,
      { decision: 'allow-once' },
      { kind: 'local', label: 'test' },
    );
    expect(late.ok).toBe(false);
    expect(readFileSync(join(host.project, 'notes.txt'), 'utf8')).toBe('first line\nsecond line\n');
  });

  it('an agent that ignores cancel is ended after the grace period', async () => {
    const host = await hostWithAgent({ limits: { cancelGraceMs: 300 } });
    const id = await start(host, 'say stuck\nhang');
    await host.waitFor(id, (e) => e.type === 'message.delta');
    host.host.parts.sessions.interrupt(id);
    expect((await finished(host, id)).status).toBe('interrupted');
    expect(host.host.parts.agents.backend.liveAgents).toBe(0);
  });

  it('an agent silent past the idle limit is stopped as hung, with its stderr', async () => {
    const host = await hostWithAgent({ limits: { idleLimitMs: 400 } });
    const id = await start(host, 'stderr last words\nhang');
    const end = await finished(host, id);
    expect(end.status).toBe('error');
    expect(end.error).toContain('said nothing');
    const notice = host.events(id).find((e): e is Of<'notice'> => e.type === 'notice' && e.text.includes('stderr'))!;
    expect(notice.text).toContain('last words');
  });

  it('the agent gets its own variables and the host’s it names in passEnv, no other', async () => {
    const host = await hostWithAgent({ env: { SCRIPTED_KEY: 'key-for-agent', OTHER_KEY: 'not-for-agent' } });
    const id = await start(host, 'env SCRIPTED_KEY\nsay ;\nenv OTHER_KEY\nsay ;\nenv SCRIPTED_ACP_LOAD');
    await finished(host, id);
    expect(messages(host, id).join('')).toBe('SCRIPTED_KEY=key-for-agent;OTHER_KEY unset;SCRIPTED_ACP_LOAD=1');
  });

  it('an agent that is not configured or not installed is refused at creation, with the reason', async () => {
    const host = await hostWithAgent();
    const unknown = await host.host.parts.sessions.create({
      cwd: host.project,
      text: 'hi',
      kind: 'acp',
      model: 'nope',
    });
    expect(!unknown.ok && unknown.error.code).toBe('invalid-params');
    const missing = await host.host.parts.sessions.create({
      cwd: host.project,
      text: 'hi',
      kind: 'acp',
      model: 'missing',
    });
    expect(!missing.ok && missing.error.message).toContain('tether-no-such-acp-agent was not found on PATH');
    expect(host.host.parts.sessions.list()).toHaveLength(0);
  });
});

describe('agents from the CLI and a device', () => {
  it('tether agents lists every agent with whether it can be started; sessions new --agent starts one', async () => {
    const host = await hostWithAgent();
    const dataDir = join(host.dir, 'data');
    const listed = await runCommand(agentsCommand, ['--data-dir', dataDir, '--json']);
    expect(listed.code).toBe(0);
    const agents = JSON.parse(listed.out) as { name: string; available: boolean; reason?: string }[];
    expect(agents.find((a) => a.name === 'scripted')).toMatchObject({ available: true });
    expect(agents.find((a) => a.name === 'missing')).toMatchObject({ available: false });
    expect(agents.map((a) => a.name)).toEqual(expect.arrayContaining(['claude-code', 'codex', 'gemini']));
    const table = await runCommand(agentsCommand, ['--data-dir', dataDir]);
    expect(table.out).toMatch(/missing\s+no/);

    const created = await runCommand(sessionsNewCommand, [
      '--data-dir',
      dataDir,
      '--cwd',
      host.project,
      '--agent',
      'scripted',
      '--json',
      'say from the CLI',
    ]);
    expect(created.code).toBe(0);
    const id = (JSON.parse(created.out) as { id: string }).id;
    await finished(host, id);
    expect(messages(host, id)).toEqual(['from the CLI']);

    const both = await runCommand(sessionsNewCommand, [
      '--data-dir',
      dataDir,
      '--cwd',
      host.project,
      '--agent',
      'scripted',
      '--model',
      'demo',
      'hi',
    ]);
    expect(both.code).not.toBe(0);
  });

  it('a device sees the available agents, starts a session of one and answers its permission request', async () => {
    const host = await hostWithAgent({ remote: true });
    const device = await pairDevice(host, { scopes: ['watch', 'approve', 'chat'] });
    const { client } = connectDevice(host, device);
    cleanups.push(() => client.stop());
    const info = await client.call('host.info', {});
    if (!info.ok) throw new Error(info.error.message);
    expect(info.value.agents?.map((a) => a.name)).toContain('scripted');
    // One that cannot start is named, as not available, so the app can say why.
    expect(info.value.agents?.find((a) => a.name === 'missing')?.available).toBe(false);

    const created = await client.call('sessions.create', {
      cwd: host.project,
      text: 'ask-edit phone.txt from the phone',
      agent: 'scripted',
    });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.session.id;
    const approval = await approvalOf(host, id);
    const answer = await client.call('approvals.answer', { id: approval.id, decision: 'allow-once' });
    expect(answer.ok).toBe(true);
    expect((await finished(host, id)).status).toBe('done');
    expect(readFileSync(join(host.project, 'phone.txt'), 'utf8')).toBe('from the phone');
  });
});
