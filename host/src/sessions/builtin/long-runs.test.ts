import type { SessionEvent } from '@tether/shared-protocol';
import { decodeEvent } from '@tether/shared-protocol';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer } from '../../../test/fakes/fake-openai-server.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { startTestHost } from '../../../test/support/test-host.js';
import { historyHandlers } from '../../rpc/history-handlers.js';

let t: TestHost | undefined;
let fake: FakeOpenAIServer | undefined;

afterEach(async () => {
  await t?.close();
  await fake?.close();
  t = fake = undefined;
});

async function setup(maxModelCalls?: number) {
  fake = new FakeOpenAIServer();
  const url = await fake.start();
  t = await startTestHost({
    env: { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: url },
    model: 'openai:gpt-test',
    ...(maxModelCalls !== undefined ? { maxModelCalls } : {}),
  });
  return { fake, t };
}

const readCall = (path: string) => ({ name: 'read_file', argumentChunks: [JSON.stringify({ path })] });
const is =
  <T extends SessionEvent['type']>(type: T) =>
  (e: SessionEvent): e is Extract<SessionEvent, { type: T }> =>
    e.type === type;

describe('long runs', () => {
  it('stop at the host limit and wait for a go-on, with the run at a glance in the summary', async () => {
    const { fake, t } = await setup(3);
    for (let i = 0; i < 3; i++)
      fake.enqueue({ text: [`step ${i}`], toolCalls: [readCall('notes.txt')], usage: { input: 100, output: 7 } });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'go' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, is('run.finished'));
    expect(fake.requests).toHaveLength(3);
    const notice = t.events(id).filter(is('notice')).at(-1);
    expect(notice?.text).toMatch(/Stopped after 3 model calls/);
    // Once, for a phone to be told that the session waits (push).
    expect(t.events(id).filter(is('session.waiting'))).toMatchObject([
      { reason: 'limit', text: 'Stopped after 3 model calls; say go on to continue.' },
    ]);
    expect(t.host.parts.sessions.get(id)).toMatchObject({
      status: 'idle',
      activity: {
        modelCalls: 3,
        maxModelCalls: 3,
        ownLimit: false,
        toolCalls: 3,
        inputTokens: 300,
        outputTokens: 21,
        paused: true,
        now: '',
      },
    });
    // The last session.updated in the log says so too: a device sees it without asking.
    const last = t.events(id).filter(is('session.updated')).at(-1);
    expect(last?.session.activity?.paused).toBe(true);

    // "Go on": a message starts the next run, which is no longer paused.
    fake.enqueue({ text: ['finished'] });
    expect(t.host.parts.sessions.send(id, 'Go on.').ok).toBe(true);
    // The new run starts at once (its first model call may already be counted): no longer paused.
    expect(t.host.parts.sessions.get(id)?.activity?.paused).toBe(false);
    await t.waitFor(id, (e) => e.type === 'run.finished' && t.events(id).filter(is('run.finished')).length === 2);
    expect(t.host.parts.sessions.get(id)?.activity).toMatchObject({ paused: false, modelCalls: 1, toolCalls: 3 });
  });

  it('take a session its own limit, and back to the default', async () => {
    const { fake, t } = await setup(5);
    fake.enqueue({ text: ['hi'] });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'go' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    await t.waitFor(id, is('run.finished'));
    const handlers = historyHandlers({ sessions: t.host.parts.sessions, log: t.host.parts.log });
    const set = handlers['sessions.configure']({ id, maxModelCalls: 2 });
    expect(set.ok && set.value.session.activity).toMatchObject({ maxModelCalls: 2, ownLimit: true });
    for (let i = 0; i < 3; i++) fake.enqueue({ toolCalls: [readCall('notes.txt')] });
    t.host.parts.sessions.send(id, 'more');
    await t.waitFor(id, (e) => e.type === 'run.finished' && t.events(id).filter(is('run.finished')).length === 2);
    expect(t.host.parts.sessions.get(id)?.activity).toMatchObject({ modelCalls: 2, paused: true });
    const back = handlers['sessions.configure']({ id, maxModelCalls: null });
    expect(back.ok && back.value.session.activity).toMatchObject({ maxModelCalls: 5, ownLimit: false });
    expect(handlers['sessions.configure']({ id: 'nope', maxModelCalls: 3 })).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });

  it('log every write with its diff, and list the changes newest first', async () => {
    const { fake, t } = await setup();
    fake.enqueue(
      {
        toolCalls: [{ name: 'write_file', argumentChunks: [JSON.stringify({ path: 'a.txt', content: 'one\ntwo\n' })] }],
      },
      {
        toolCalls: [
          {
            name: 'edit_file',
            argumentChunks: [JSON.stringify({ path: 'notes.txt', old_text: 'second line', new_text: 'line two' })],
          },
        ],
      },
      { text: ['done'] },
    );
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'write' });
    if (!created.ok) throw new Error(created.error.message);
    const id = created.value.id;
    t.host.parts.sessions.setAutoApprove(id, true);
    // Auto-approve came after the first approval was raised: answer what waits.
    for (const approval of t.host.parts.approvals.pending(id))
      t.host.parts.approvals.answer(approval.id, { decision: 'allow-once' }, { kind: 'local', label: 'test' });
    await t.waitFor(id, is('run.finished'));
    expect(readFileSync(join(t.project, 'notes.txt'), 'utf8')).toBe('first line\nline two\n');
    const changed = t.events(id).filter(is('file.changed'));
    expect(changed.map((e) => [e.path, e.change])).toEqual([
      ['a.txt', 'created'],
      ['notes.txt', 'modified'],
    ]);
    expect(changed[1]!.diff).toContain('-second line');
    expect(changed[1]!.diff).toContain('+line two');
    const handlers = historyHandlers({ sessions: t.host.parts.sessions, log: t.host.parts.log });
    const listed = handlers['sessions.changes']({ id });
    if (!listed.ok) throw new Error(listed.error.message);
    const paths = listed.value.events.map((e) => {
      const decoded = decodeEvent(e);
      return decoded.kind === 'event' && decoded.event.type === 'file.changed' ? decoded.event.path : '?';
    });
    expect(paths).toEqual(['notes.txt', 'a.txt']);
    expect(listed.value.more).toBe(false);
    const one = handlers['sessions.changes']({ id, limit: 1 });
    expect(one.ok && [one.value.events.length, one.value.more]).toEqual([1, true]);
  });
});
