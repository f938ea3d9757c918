import type { Approval, SessionEvent } from '@tether/shared-protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnthropicServer } from '../../../test/fakes/fake-anthropic-server.js';
import { FakeOpenAIServer } from '../../../test/fakes/fake-openai-server.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';

type Fake = FakeAnthropicServer | FakeOpenAIServer;

const local = { kind: 'local' as const, label: 'test' };
let t: TestHost | undefined;
let fake: Fake | undefined;

afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

async function setup(kind: 'anthropic' | 'openai') {
  fake = kind === 'anthropic' ? new FakeAnthropicServer() : new FakeOpenAIServer();
  const url = await fake.start();
  const env =
    kind === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: url }
      : { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: url };
  t = await startTestHost({ env, model: kind === 'anthropic' ? 'anthropic:claude-test' : 'openai:gpt-test' });
  return { fake, t };
}

async function create(text = 'do it'): Promise<string> {
  const created = await t!.host.parts.sessions.create({ cwd: t!.project, text });
  if (!created.ok) throw new Error(created.error.message);
  return created.value.id;
}

const is =
  <T extends SessionEvent['type']>(type: T) =>
  (e: SessionEvent): e is Extract<SessionEvent, { type: T }> =>
    e.type === type;

async function approvalOf(sessionId: string): Promise<Approval> {
  const event = await t!.waitFor(sessionId, is('approval.requested'));
  return (event as Extract<SessionEvent, { type: 'approval.requested' }>).approval;
}

function toolResultText(request: unknown, kind: 'anthropic' | 'openai'): string {
  // What the model received as the last tool result in `request`.
  const body = request as { messages: { role: string; content: unknown }[] };
  const last = body.messages[body.messages.length - 1]!;
  if (kind === 'openai') return String(last.content);
  const blocks = last.content as { type: string; content?: unknown }[];
  const result = blocks.find((b) => b.type === 'tool_result')!;
  return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
}

describe.each(['anthropic', 'openai'] as const)('agent loop over the %s SDK', (kind) => {
  it('streams text, asks before a shell command, and continues with its result after approval', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue(
      {
        text: ['Let me ', 'look.'],
        toolCalls: [{ name: 'shell', argumentChunks: ['{"comm', 'and": "cat notes.txt"}'] }],
      },
      { text: ['It says hello.'] },
    );
    const id = await create();
    const approval = await approvalOf(id);
    expect(approval).toMatchObject({
      tool: 'shell',
      kind: 'shell',
      action: 'cat notes.txt',
      cwd: t.project,
      place: 'local',
    });
    expect(t.host.parts.sessions.get(id)).toMatchObject({ status: 'waiting', pendingApprovals: 1 });
    expect(t.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, local).ok).toBe(true);
    await t.waitFor(id, is('run.finished'));
    const events = t.events(id);
    expect(events.filter(is('message')).map((e) => [e.role, e.text])).toEqual([
      ['user', 'do it'],
      ['assistant', 'Let me look.'],
      ['assistant', 'It says hello.'],
    ]);
    expect(events.some(is('message.delta'))).toBe(true);
    expect(events.find(is('tool.finished'))).toMatchObject({ ok: true, exitCode: 0 });
    expect(toolResultText(fake.requests[1], kind)).toContain('second line');
    expect(events.find(is('run.finished'))).toMatchObject({ status: 'done' });
    expect(t.host.parts.sessions.get(id)).toMatchObject({ status: 'idle', pendingApprovals: 0 });
    // Sequence numbers have no gaps.
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  });

  it('tells the model about a denial and its note', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue(
      { toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"rm -rf build"}'] }] },
      { text: ['OK, I will not.'] },
    );
    const id = await create();
    const approval = await approvalOf(id);
    t.host.parts.approvals.answer(approval.id, { decision: 'deny', note: 'use make clean instead' }, local);
    await t.waitFor(id, is('run.finished'));
    expect(toolResultText(fake.requests[1], kind)).toContain('use make clean instead');
    expect(t.events(id).find(is('tool.finished'))).toMatchObject({ ok: false });
    const second = t.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, local);
    expect(!second.ok && second.error.code).toBe('already-resolved');
  });

  it('interrupts a stream in progress', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue({ hang: true });
    const id = await create();
    await fake.waitForRequests(1);
    t.host.parts.sessions.interrupt(id);
    const finished = await t.waitFor(id, is('run.finished'));
    expect(finished).toMatchObject({ status: 'interrupted' });
    expect(t.host.parts.sessions.get(id)?.status).toBe('interrupted');
  });

  it('retries a 500 with a notice, then succeeds', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue({ error: { status: 500, message: 'overloaded' } }, { text: ['Hello.'] });
    const id = await create();
    await t.waitFor(id, is('run.finished'));
    const events = t.events(id);
    expect(events.find(is('notice'))?.text).toMatch(/trying again/);
    expect(events.find(is('run.finished'))).toMatchObject({ status: 'done' });
  });

  it('ends the run as an error on a 400, with the provider message', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue({ error: { status: 400, message: 'prompt is too long' } });
    const id = await create();
    const finished = await t.waitFor(id, is('run.finished'));
    expect(finished).toMatchObject({ status: 'error' });
    expect((finished as Extract<SessionEvent, { type: 'run.finished' }>).error).toContain('prompt is too long');
    expect(t.host.parts.sessions.get(id)?.status).toBe('error');
  });

  it('ends the run as an error when the stream is cut, without hanging', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue({ cut: { afterEvents: 3 } });
    const id = await create();
    expect(await t.waitFor(id, is('run.finished'))).toMatchObject({ status: 'error' });
  });

  it('reports malformed tool arguments back to the model and goes on', async () => {
    const { fake, t } = await setup(kind);
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', argumentChunks: ['{"path": "notes.txt"'] }] },
      { text: ['Sorry.'] },
    );
    const id = await create();
    await t.waitFor(id, is('run.finished'));
    expect(t.events(id).find(is('tool.finished'))).toMatchObject({ ok: false });
    expect(toolResultText(fake.requests[1], kind)).toMatch(/not valid JSON/);
  });
});

describe('agent loop behaviour', () => {
  it('runs read-only tools without asking, and queues a follow-up sent while busy', async () => {
    const { fake, t } = await setup('anthropic');
    fake.enqueue(
      { toolCalls: [{ name: 'read_file', argumentChunks: ['{"path":"notes.txt"}'] }], chunkDelayMs: 50 },
      { text: ['Read it.'] },
      { text: ['Got your follow-up.'] },
    );
    const id = await create();
    expect(t.host.parts.sessions.send(id, 'and one more thing')).toEqual({ ok: true, value: { queued: true } });
    expect(t.host.parts.sessions.get(id)?.queued).toBe(1);
    await t.waitFor(id, is('run.finished'));
    const messages = t
      .events(id)
      .filter(is('message'))
      .map((e) => e.text);
    expect(messages).toEqual(['do it', 'Read it.', 'and one more thing', 'Got your follow-up.']);
    expect(t.events(id).some(is('approval.requested'))).toBe(false);
    expect(fake.requests).toHaveLength(3);
  });

  it('remembers "allow for this session" with a chosen prefix, but never for a chained command', async () => {
    const { fake, t } = await setup('anthropic');
    fake.enqueue(
      { toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"echo hello one"}'] }] },
      { toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"echo hello two"}'] }] },
      { toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"echo hello three; rm x"}'] }] },
      { text: ['done'] },
    );
    const id = await create();
    const first = await approvalOf(id);
    const badPrefix = t.host.parts.approvals.answer(first.id, { decision: 'allow-session', prefix: 'ls' }, local);
    expect(!badPrefix.ok && badPrefix.error.code).toBe('invalid-params');
    const bare = t.host.parts.approvals.answer(first.id, { decision: 'allow-session', prefix: 'echo' }, local);
    expect(!bare.ok && bare.error.message).toMatch(/at least one argument/);
    expect(t.host.parts.approvals.answer(first.id, { decision: 'allow-session', prefix: 'echo hello' }, local).ok).toBe(
      true,
    );
    const third = (await t.waitFor(
      id,
      (e) => e.type === 'approval.requested' && e.approval.id !== first.id,
    )) as Extract<SessionEvent, { type: 'approval.requested' }>;
    expect(third.approval.action).toBe('echo hello three; rm x');
    t.host.parts.approvals.answer(third.approval.id, { decision: 'deny' }, local);
    await t.waitFor(id, is('run.finished'));
    expect(t.events(id).filter(is('approval.requested'))).toHaveLength(2);
  });

  it('interrupt kills a running command and cancels nothing else', async () => {
    const { fake, t } = await setup('anthropic');
    fake.enqueue({ toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"sleep 30"}'] }] });
    const id = await create();
    const approval = await approvalOf(id);
    t.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, local);
    await t.waitFor(id, is('approval.resolved'));
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    t.host.parts.sessions.interrupt(id);
    const finished = await t.waitFor(id, is('run.finished'));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(finished).toMatchObject({ status: 'interrupted' });
    expect(t.events(id).find(is('tool.finished'))?.output).toMatch(/interrupted/);
  });

  it('interrupt while waiting for approval cancels the approval', async () => {
    const { fake, t } = await setup('anthropic');
    fake.enqueue({ toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"ls"}'] }] });
    const id = await create();
    const approval = await approvalOf(id);
    t.host.parts.sessions.interrupt(id);
    await t.waitFor(id, is('run.finished'));
    const resolved = t.events(id).find(is('approval.resolved'));
    expect(resolved?.approval).toMatchObject({ id: approval.id, status: 'cancelled' });
    expect(t.host.parts.approvals.pending()).toEqual([]);
  });

  it('auto-approve runs actions without asking, and says so in the transcript', async () => {
    const { fake, t } = await setup('anthropic');
    fake.enqueue(
      { text: ['hi'] },
      { toolCalls: [{ name: 'shell', argumentChunks: ['{"command":"echo auto"}'] }] },
      { text: ['ok'] },
    );
    const id = await create();
    await t.waitFor(id, is('run.finished'));
    t.host.parts.sessions.setAutoApprove(id, true);
    expect(t.host.parts.sessions.get(id)?.autoApprove).toBe(true);
    t.host.parts.sessions.send(id, 'again');
    await t.waitFor(id, (e) => e.type === 'run.finished' && e.seq > 10);
    expect(t.events(id).some(is('approval.requested'))).toBe(false);
    expect(t.events(id).find(is('tool.finished'))?.output).toContain('auto');
  });

  it('refuses a session in a folder that does not exist, and an unknown model', async () => {
    t = await startTestHost();
    const missing = await t.host.parts.sessions.create({ cwd: '/nonexistent/folder', text: 'x' });
    expect(!missing.ok && missing.error.code).toBe('invalid-params');
    const model = await t.host.parts.sessions.create({ cwd: t.project, text: 'x', model: 'anthropic:claude' });
    expect(!model.ok && model.error.message).toMatch(/ANTHROPIC_API_KEY/);
  });
});
