import { afterEach, describe, expect, it } from 'vitest';
import {
  SCRIPTED_AGENT,
  assistantText,
  eventsOf,
  runFinished,
  startAcpTestHost,
} from '../../../test/support/acp-test-host.js';
import type { TestHost } from '../../../test/support/test-host.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A host whose agent `steer` offers modes, models and commands (as `steer` says), reporting usage as `usage` says. */
async function start(steer: string, usage?: string, keepIdleMs?: number): Promise<TestHost> {
  const started = await startAcpTestHost({
    agents: {
      steer: {
        title: 'Steer',
        command: process.execPath,
        args: [SCRIPTED_AGENT],
        env: { SCRIPTED_ACP_STEER: steer, ...(usage ? { SCRIPTED_ACP_USAGE: usage } : {}) },
      },
    },
    ...(keepIdleMs !== undefined ? { limits: { keepIdleMs } } : {}),
  });
  close = started.close;
  return started.host;
}

async function newSession(host: TestHost, text: string): Promise<string> {
  const created = await host.host.parts.steering.create({ cwd: host.project, text, kind: 'acp', model: 'steer' }, {});
  if (!created.ok) throw new Error(created.error.message);
  return created.value.id;
}

async function send(host: TestHost, id: string, text: string, nth: number): Promise<void> {
  const sent = await host.host.parts.commands.send(id, text);
  if (!sent.ok) throw new Error(sent.error.message);
  await runFinished(host, id, nth);
}

describe("an ACP agent's commands, modes and models", () => {
  it('are kept from its answer and its updates, listed for the session and for its next New session', async () => {
    const host = await start('1');
    const id = await newSession(host, 'whatmode');
    await runFinished(host, id);
    const controls = await host.host.parts.steering.controls(id);
    if (!controls.ok) throw new Error(controls.error.message);
    expect(controls.value.commands).toEqual([
      { name: 'review', description: 'Review the changes', hint: '[branch]', source: 'agent' },
      { name: 'init', description: 'Write an AGENTS.md', source: 'agent' },
    ]);
    expect(controls.value.modes.map((m) => m.id)).toEqual(['ask', 'plan', 'auto']);
    expect(controls.value.models).toEqual([
      { id: 'small', name: 'Small model' },
      { id: 'large', name: 'Large model', description: 'Slower, better' },
    ]);
    expect(host.host.parts.sessions.get(id)).toMatchObject({
      mode: { id: 'ask', name: 'Ask' },
      agentModel: { id: 'small', name: 'Small model' },
    });
    const offers = host.host.parts.steering.agentControls('steer');
    expect(offers.ok && offers.value.modes.map((m) => m.id)).toEqual(['ask', 'plan', 'auto']);
    // The agent's own commands are its own: `/review` goes to it as the text it is.
    await send(host, id, '/review main', 2);
    expect(eventsOf(host, id, 'message').at(-2)).toMatchObject({ role: 'user', text: '/review main' });
  });

  it('are switched at once while its process lives, and at its next start when it does not', async () => {
    const host = await start('1', undefined, 200);
    const id = await newSession(host, 'whatmode');
    await runFinished(host, id);
    expect(assistantText(host, id)).toContain('mode ask, model small');
    const plan = await host.host.parts.steering.setMode(id, 'plan');
    expect(plan.ok && plan.value.mode).toEqual({ id: 'plan', name: 'Plan' });
    await send(host, id, 'whatmode', 2);
    expect(assistantText(host, id)).toContain('mode plan, model small');
    // Kept idle 200 ms, then ended: the model is taken at the next start, the mode given again.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const large = await host.host.parts.steering.setModel(id, 'large');
    expect(large.ok && large.value.agentModel).toEqual({ id: 'large', name: 'Large model' });
    await send(host, id, 'whatmode', 3);
    expect(assistantText(host, id)).toContain('mode plan, model large');
    const unknown = await host.host.parts.steering.setMode(id, 'yolo');
    expect(unknown.ok || unknown.error.message).toBe('Steer has no mode yolo: choose one of ask, plan, auto');
  });

  it('through config options too, as Codex offers its models', async () => {
    const host = await start('config');
    const id = await newSession(host, 'whatmode');
    await runFinished(host, id);
    expect(host.host.parts.sessions.get(id)?.agentModel).toEqual({ id: 'small', name: 'Small model' });
    const large = await host.host.parts.steering.setModel(id, 'large');
    expect(large.ok).toBe(true);
    await send(host, id, 'whatmode', 2);
    expect(assistantText(host, id)).toContain('model large');
  });

  it('a mode the agent switches to itself is said in the transcript and shown', async () => {
    const host = await start('1');
    const id = await newSession(host, 'mode auto\nsay done');
    await runFinished(host, id);
    expect(host.host.parts.sessions.get(id)?.mode).toEqual({ id: 'auto', name: 'Auto' });
    expect(eventsOf(host, id, 'notice').map((n) => n.text)).toContain('Steer switched to the mode Auto.');
  });
});

describe("an ACP agent's spend", () => {
  it('counts the usage its turns report, and stops sending before a prompt once the budget is reached; raising it sends what waited', async () => {
    const host = await start('1', 'acp');
    const id = await newSession(host, 'say one');
    await runFinished(host, id);
    expect(eventsOf(host, id, 'run.finished')[0]).toMatchObject({ usage: { inputTokens: 1000, outputTokens: 200 } });
    expect(host.host.parts.sessions.get(id)?.activity).toMatchObject({
      inputTokens: 1000,
      outputTokens: 200,
      unpricedCalls: 1,
    });
    expect(host.host.parts.sessions.get(id)?.activity?.unreportedRuns).toBeUndefined();

    const set = host.host.parts.steering.setBudget(id, { tokens: 1200 });
    expect(set.ok).toBe(true);
    const held = await host.host.parts.commands.send(id, 'whoami');
    expect(held.ok && held.value.queued).toBe(true);
    const waiting = await host.waitFor(id, (e) => e.type === 'session.waiting');
    expect(waiting).toMatchObject({ reason: 'budget', text: 'Budget reached: 1200 of 1200 tokens spent.' });
    expect(host.host.parts.sessions.get(id)).toMatchObject({ queued: 1, activity: { budgetReached: true } });

    const raised = host.host.parts.steering.setBudget(id, { tokens: 10_000 });
    expect(raised.ok).toBe(true);
    await runFinished(host, id, 2);
    expect(assistantText(host, id)).toMatch(/prompt 2/);
    expect(host.host.parts.sessions.get(id)?.queued).toBe(0);
  });

  it('refuses a budget for an agent whose turns do not say what they used', async () => {
    const host = await start('1');
    const id = await newSession(host, 'say one');
    await runFinished(host, id);
    const refused = host.host.parts.steering.setBudget(id, { tokens: 1000 });
    expect(refused.ok || refused.error.message).toBe(
      'Steer does not say what its turns use, so a budget cannot be kept for it',
    );
  });
});
