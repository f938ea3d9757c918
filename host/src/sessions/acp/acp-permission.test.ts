import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TranscriptPrinter } from '../../cli/transcript-printer.js';
import { collector } from '../../../test/support/run-command.js';
import type { TestHost } from '../../../test/support/test-host.js';
import {
  assistantText,
  eventsOf,
  nthApproval,
  runFinished,
  startAcpTestHost,
  startAgentSession,
} from '../../../test/support/acp-test-host.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function setup(): Promise<{ host: TestHost; rules: string }> {
  const started = await startAcpTestHost();
  close = started.close;
  return started;
}

const by = { kind: 'local', label: 'test' } as const;

/** The scripted agent's `codex-run` asks as Zed's Codex adapter does (see the fixture). */
describe('an agent that asks as Codex does', () => {
  it('“allow for this session” answers “approved” each time and leaves no rule with the agent', async () => {
    const { host, rules } = await setup();
    const id = await startAgentSession(host, 'codex-run echo codex-ok > proof.txt');
    const approval = await nthApproval(host, id);
    expect(approval.kind).toBe('shell');
    expect(host.host.parts.approvals.answer(approval.id, { decision: 'allow-session' }, by).ok).toBe(true);
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('ran (approved), exit 0');
    expect(readFileSync(join(host.project, 'proof.txt'), 'utf8')).toBe('codex-ok\n');

    // Tether's own rule covers the same command again, and the agent is told "approved" once more.
    host.host.parts.sessions.send(id, 'codex-run echo codex-ok > proof.txt');
    expect((await runFinished(host, id, 2)).status).toBe('done');
    expect(eventsOf(host, id, 'approval.requested')).toHaveLength(1);
    expect(assistantText(host, id).match(/ran \(approved\), exit 0/g)).toHaveLength(2);
    expect(existsSync(rules)).toBe(false);
  });

  it('the agent’s persisting option is offered as “always, for every session”, and only that answer picks it', async () => {
    const { host, rules } = await setup();
    const id = await startAgentSession(host, 'codex-run echo once\ncodex-run echo always');
    const first = await nthApproval(host, id);
    expect(first.always).toBe("Yes, and don't ask again for commands that start with `/bin/bash -lc echo once`");
    expect(first.action).toContain(
      "always, for every session of Scripted → “Yes, and don't ask again for commands that start with `/bin/bash -lc echo once`”",
    );
    expect(first.action).toContain('allow for this session → “Yes, proceed” each time (Tether keeps the rule)');
    // A lock-screen Approve is allow-once: the agent hears "approved", never the amendment.
    host.host.parts.approvals.answer(first.id, { decision: 'allow-once' }, by);
    const second = await nthApproval(host, id, 2);
    host.host.parts.approvals.answer(second.id, { decision: 'allow-always' }, by);
    await runFinished(host, id);
    expect(assistantText(host, id)).toContain('ran (approved), exit 0');
    expect(assistantText(host, id)).toContain('ran (approved-execpolicy-amendment), exit 0');
    expect(readFileSync(rules, 'utf8')).toBe(
      'prefix_rule(pattern=["/bin/bash","-lc","echo always"], decision="allow")\n',
    );
    const resolved = eventsOf(host, id, 'approval.resolved').map((e) => e.approval.decision);
    expect(resolved).toEqual(['allow-once', 'allow-always']);
  });

  it('“always” is refused for an approval that offers no such answer', async () => {
    const { host } = await setup();
    const id = await startAgentSession(host, 'ask-line echo plain');
    const approval = await nthApproval(host, id);
    // The scripted agent's own options do have an allow-always: it is offered.
    expect(approval.always).toBe('Always allow');
    host.host.parts.approvals.answer(approval.id, { decision: 'deny' }, by);
    await runFinished(host, id);
    host.host.parts.sessions.send(id, 'line echo unasked');
    const unasked = await nthApproval(host, id, 2);
    // A command sent without a permission request has no agent option: nothing but Tether's answers.
    expect(unasked.always).toBeUndefined();
    const refused = host.host.parts.approvals.answer(unasked.id, { decision: 'allow-always' }, by);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe('invalid-params');
    expect(host.host.parts.approvals.pending(id)).toHaveLength(1);
    host.host.parts.approvals.answer(unasked.id, { decision: 'deny' }, by);
    await runFinished(host, id, 2);
  });

  it('the approval shows the agent’s own words on why it asks, above the command', async () => {
    const { host } = await setup();
    const id = await startAgentSession(host, 'codex-run echo why');
    const approval = await nthApproval(host, id);
    const lines = approval.action.split('\n');
    expect(lines[0]).toBe('Scripted asks: echo why');
    expect(lines[1]).toBe('Scripted says why:');
    expect(lines[2]).toBe('  Do you want me to run “echo why” outside the sandbox?');
    expect(lines.indexOf('command: echo why')).toBeGreaterThan(2);
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, by);
    await runFinished(host, id);
  });

  it('the transcript shows what a command printed from the agent’s rawOutput, its exit code, escaped', async () => {
    const { host } = await setup();
    const id = await startAgentSession(
      host,
      "codex-run printf 'out\\033[31mred\\n'; echo err >&2\ncodex-run echo failing; exit 7",
    );
    host.host.parts.approvals.answer((await nthApproval(host, id)).id, { decision: 'allow-once' }, by);
    host.host.parts.approvals.answer((await nthApproval(host, id, 2)).id, { decision: 'allow-once' }, by);
    await runFinished(host, id);
    const finished = eventsOf(host, id, 'tool.finished');
    expect(finished.map((e) => [e.output, e.exitCode, e.ok])).toEqual([
      ['out\u001b[31mred\nerr\n', 0, true],
      ['failing\nexit code 7', 7, false],
    ]);
    // Not the question left over from the permission request.
    expect(finished.every((e) => !e.output.includes('Proposed Amendment'))).toBe(true);
    const out = collector();
    const printer = new TranscriptPrinter(out.stream, false);
    for (const event of host.events(id)) printer.print(event);
    expect(out.text()).not.toContain('\u001b');
    expect(out.text()).toContain('│ out⟨ESC⟩[31mred');
  });

  it('a denial reads as one: the call says denied, nothing runs, and the run is done, not interrupted', async () => {
    const { host } = await setup();
    const id = await startAgentSession(host, 'codex-run echo never > never.txt\nsay not reached');
    const approval = await nthApproval(host, id);
    host.host.parts.approvals.answer(approval.id, { decision: 'deny' }, by);
    const end = await runFinished(host, id);
    expect(end.status).toBe('done');
    const finished = eventsOf(host, id, 'tool.finished');
    expect(finished.map((e) => [e.ok, e.output])).toEqual([[false, 'Denied: not run.']]);
    expect(JSON.stringify(host.events(id))).not.toMatch(/interrupted|ended before the agent finished/i);
    expect(eventsOf(host, id, 'notice').map((e) => e.text)).toContain(
      'Scripted ended its turn after the denial: send a message to say what to do instead.',
    );
    expect(existsSync(join(host.project, 'never.txt'))).toBe(false);
  });

  it('an interrupt while Codex asks still reads as an interrupt', async () => {
    const { host } = await setup();
    const id = await startAgentSession(host, 'codex-run echo never > never.txt');
    await nthApproval(host, id);
    host.host.parts.sessions.interrupt(id);
    expect((await runFinished(host, id)).status).toBe('interrupted');
    expect(existsSync(join(host.project, 'never.txt'))).toBe(false);
  });
});

describe('an edit asked for as a part of the file, as Claude Code asks', () => {
  it('is shown as the change to the whole file and granted as the write it leads to: asked once', async () => {
    const { host } = await setup();
    writeFileSync(join(host.project, 'notes.txt'), 'one\ntwo\nthree\nfour\n');
    const id = await startAgentSession(host, 'ask-replace notes.txt three THREE');
    const approval = await nthApproval(host, id);
    expect(approval.action).toContain(
      'change notes.txt\n--- a/notes.txt\n+++ b/notes.txt\n@@ -1,4 +1,4 @@\n one\n two\n-three\n+THREE\n four',
    );
    host.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, by);
    expect((await runFinished(host, id)).status).toBe('done');
    expect(assistantText(host, id)).toContain('replaced');
    expect(readFileSync(join(host.project, 'notes.txt'), 'utf8')).toBe('one\ntwo\nTHREE\nfour\n');
    expect(eventsOf(host, id, 'approval.requested')).toHaveLength(1);
  });

  it('a part found twice is shown as the agent sent it, and the write then asks on its own', async () => {
    const { host } = await setup();
    writeFileSync(join(host.project, 'notes.txt'), 'same\nsame\n');
    const id = await startAgentSession(host, 'ask-replace notes.txt same other');
    const first = await nthApproval(host, id);
    expect(first.action).toContain('-same\n+other');
    expect(first.action).not.toContain(' same');
    host.host.parts.approvals.answer(first.id, { decision: 'allow-once' }, by);
    const second = await nthApproval(host, id, 2);
    expect(second.action).toContain('Write notes.txt');
    host.host.parts.approvals.answer(second.id, { decision: 'allow-once' }, by);
    expect((await runFinished(host, id)).status).toBe('done');
    expect(readFileSync(join(host.project, 'notes.txt'), 'utf8')).toBe('other\nsame\n');
  });
});
