import type { SessionEvent } from '@tether/shared-protocol';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionsBudgetCommand } from '../../cli/commands/sessions-steer.js';
import { runCommand } from '../../../test/support/run-command.js';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import type { ScriptedTurn } from '../../../test/fakes/scripted-response.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';
import { MIN_CALL_OUTPUT } from '../spend-guard.js';

let t: TestHost | undefined;
let fake: FakeAnthropicServer | undefined;
afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

/** What the stand-in says a request took in: its JSON over four, a count the loop never sees in advance. */
const counted = (request: Record<string, unknown>) => Math.ceil(JSON.stringify(request).length / 4);
const OUT = 200;
/** A turn that reads the big file again: each request is some 2,000 tokens larger than the one before. */
const readBig: ScriptedTurn = {
  toolCalls: [{ name: 'read_file', argumentChunks: ['{"path":"big.txt"}'] }],
  usage: (request) => ({ input: counted(request), output: OUT }),
};

async function startWithFake(model: string): Promise<{ t: TestHost; fake: FakeAnthropicServer }> {
  fake = new FakeAnthropicServer();
  const url = await fake.start();
  t = await startTestHost({ env: { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url }, model });
  writeFileSync(
    join(t.project, 'big.txt'),
    Array.from({ length: 160 }, (_, i) => `line ${i}: the quick brown fox jumps over the lazy dog\n`).join(''),
  );
  return { t, fake };
}

const of = <T extends SessionEvent['type']>(events: SessionEvent[], type: T) =>
  events.filter((e): e is Extract<SessionEvent, { type: T }> => e.type === type);

describe('a budget', () => {
  it('stops the run before the first model call that could pass it, never one past it; raising it goes on', async () => {
    const { t, fake } = await startWithFake('anthropic:claude-test');
    const budget = 16_000;
    fake.enqueue(readBig, readBig, readBig, readBig, readBig, readBig);
    const created = await t.host.parts.steering.create(
      { cwd: t.project, text: 'read big.txt again and again' },
      { budget: { tokens: budget } },
    );
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, (e) => e.type === 'session.waiting');

    // Never past it: for every call made, what was spent before it, what it took in (as the API
    // counted) and all it was allowed to say fit in the budget.
    const made = fake.requests.length;
    expect(made).toBeGreaterThanOrEqual(2);
    let spent = 0;
    for (const request of fake.requests) {
      expect(spent + counted(request) + Number(request['max_tokens'])).toBeLessThanOrEqual(budget);
      spent += counted(request) + OUT;
    }
    // At it: the next call, at least as large as the last, could not have fit even by the API's count.
    expect(spent + counted(fake.requests.at(-1)!) + MIN_CALL_OUTPUT).toBeGreaterThan(budget);
    // max_tokens was lowered to the room left on the way there.
    expect(Number(fake.requests.at(-1)!['max_tokens'])).toBeLessThan(8192);

    const events = t.events(id);
    const waiting = of(events, 'session.waiting').at(-1)!;
    expect(waiting.reason).toBe('budget');
    expect(waiting.text).toMatch(new RegExp(`^Budget reached: ${spent} of ${budget} tokens spent`));
    expect(of(events, 'notice').at(-1)?.text).toBe(waiting.text);
    expect(of(events, 'run.finished').at(-1)).toMatchObject({ status: 'done' });
    const summary = t.host.parts.sessions.get(id)!;
    expect(summary.status).toBe('idle');
    expect(summary.activity).toMatchObject({ budgetReached: true, inputTokens: spent - made * OUT });
    expect(summary.activity?.runOutputTokens).toBe(made * OUT);
    expect(summary.budget).toEqual({ tokens: budget });

    // Raised from the CLI: the same run goes on from where it stopped, with no new message.
    const left = fake.pending;
    fake.enqueue({ text: ['Read it ', `${made + left} times.`] });
    const shown = await runCommand(sessionsBudgetCommand, [id, '--data-dir', t.host.parts.paths.dir]);
    expect(shown.out).toMatch(/^Spent: last run .* · budget 16\.0k tokens \(reached: it waits for you\)/);
    const raised = await runCommand(sessionsBudgetCommand, [
      id,
      '--tokens',
      '1,000,000',
      '--data-dir',
      t.host.parts.paths.dir,
    ]);
    expect(raised.code, raised.err).toBe(0);
    expect(raised.out).toBe('Budget set. The session goes on.\n');
    await t.waitFor(id, (e) => e.type === 'run.finished' && e.seq > waiting.seq);
    expect(fake.requests).toHaveLength(made + left + 1);
    const resumed = fake.requests[made]!['messages'] as { role: string; content: unknown }[];
    expect(resumed.at(-1)?.role).toBe('user');
    expect(JSON.stringify(resumed.at(-1)?.content)).toContain('tool_result');
    expect(of(t.events(id), 'message').filter((m) => m.role === 'user')).toHaveLength(1);
    expect(t.host.parts.sessions.get(id)?.activity?.budgetReached).toBeUndefined();
  });

  it('in dollars, prices each call at the model price and refuses a model without one', async () => {
    const { t, fake } = await startWithFake('anthropic:claude-haiku-4-5');
    fake.enqueue({ text: ['hello'], usage: { input: 100_000, output: 10_000 } });
    const created = await t.host.parts.steering.create({ cwd: t.project, text: 'hi' }, { budget: { usd: 1 } });
    if (!created.ok) throw new Error(created.error.message);
    await t.waitFor(created.value.id, (e) => e.type === 'run.finished');
    // 100,000 in at $1 and 10,000 out at $5 a million.
    expect(t.host.parts.sessions.get(created.value.id)?.activity?.costUsd).toBeCloseTo(0.15, 6);

    const refused = await t.host.parts.steering.setModel(created.value.id, 'demo');
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.message).toMatch(/budget is in dollars, and no price is known for demo/);
    const unpriced = await t.host.parts.steering.create(
      { cwd: t.project, text: 'hi', model: 'demo' },
      { budget: { usd: 1 } },
    );
    expect(unpriced.ok).toBe(false);
    if (!unpriced.ok) expect(unpriced.error.code).toBe('invalid-params');
  });
});
