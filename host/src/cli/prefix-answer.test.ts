import type { SessionEvent } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../test/fakes/fake-anthropic-server.js';
import { collector, runCommand } from '../../test/support/run-command.js';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { approveCommand } from './commands/approvals.js';
import { TranscriptPrinter } from './transcript-printer.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;

afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

async function approvalFor(command: string): Promise<{ sessionId: string; approvalId: string }> {
  fake = new FakeAnthropicServer();
  const url = await fake.start();
  t = await startTestHost({
    env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url },
    model: 'anthropic:claude-test',
  });
  fake.enqueue({ toolCalls: [{ name: 'shell', argumentChunks: [JSON.stringify({ command })] }] }, { text: ['ok'] });
  const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'look at the history' });
  if (!created.ok) throw new Error(created.error.message);
  const event = await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
  return {
    sessionId: created.value.id,
    approvalId: (event as Extract<SessionEvent, { type: 'approval.requested' }>).approval.id,
  };
}

describe('tether approve --prefix', () => {
  it('refuses a bare program and says why', async () => {
    const { approvalId } = await approvalFor('git log --oneline');
    const r = await runCommand(approveCommand, [
      approvalId,
      'allow',
      '--prefix',
      'git',
      '--data-dir',
      t!.host.parts.paths.dir,
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('at least one argument');
  });

  it('says plainly, when it answers and in the transcript, what the rule allows', async () => {
    const { sessionId, approvalId } = await approvalFor('git log --oneline');
    const r = await runCommand(approveCommand, [
      approvalId,
      'allow',
      '--prefix',
      'git log',
      '--data-dir',
      t!.host.parts.paths.dir,
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(
      'Allowed. For the rest of this session, “git log” alone or followed only by plain words (no options, no shell syntax, no host or address, nothing outside the session folder or in a private folder; the program decides what they do) runs without asking.\n',
    );
    await t!.waitFor(sessionId, (e) => e.type === 'approval.resolved');
    const out = collector();
    const printer = new TranscriptPrinter(out.stream, false);
    for (const event of t!.events(sessionId)) printer.print(event);
    expect(out.text()).toContain(
      '→ allowed (allow-session) by this computer; from now on “git log” alone or followed only by plain words (no options',
    );
  });
});
