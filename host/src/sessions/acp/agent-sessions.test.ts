import type { SessionEvent } from '@tether/shared-protocol';
import { MAX_AGENT_SESSIONS, MAX_AGENT_SESSION_TITLE } from '@tether/shared-protocol';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { connectDevice, pairDevice } from '../../../test/support/remote-device.js';
import { runCommand } from '../../../test/support/run-command.js';
import type { TestHost } from '../../../test/support/test-host.js';
import { LOCAL_REMOTE, startTestHost } from '../../../test/support/test-host.js';
import { agentsContinueCommand, agentsSessionsCommand } from '../../cli/commands/agents.js';
import { MAX_HISTORY_EVENTS } from './acp-history.js';
import { MAX_LISTINGS } from './agent-sessions.js';

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
 * A host whose agent `scripted` keeps its sessions in `state` and, by default, lists, loads and
 * resumes them. `stored` are sessions "started at the computer", written there first.
 */
async function hostWithStoredSessions(
  options: {
    env?: Record<string, string>;
    stored?: (project: string, elsewhere: string) => Record<string, unknown>;
    remote?: boolean;
  } = {},
): Promise<{ host: TestHost; state: string; elsewhere: string }> {
  const config = mkdtempSync(join(tmpdir(), 'tether-continue-'));
  cleanups.push(() => rmSync(config, { recursive: true, force: true }));
  const state = join(config, 'state');
  mkdirSync(state);
  const agentsConfig = join(config, 'agents.json');
  writeFileSync(
    agentsConfig,
    JSON.stringify({
      agents: {
        scripted: {
          title: 'Scripted',
          command: process.execPath,
          args: [FIXTURE],
          env: {
            SCRIPTED_ACP_LOAD: '1',
            SCRIPTED_ACP_LIST: '1',
            SCRIPTED_ACP_RESUME: '1',
            SCRIPTED_ACP_STATE_DIR: state,
            ...options.env,
          },
        },
      },
    }),
  );
  t = await startTestHost({ agentsConfig, ...(options.remote ? { remote: LOCAL_REMOTE } : {}) });
  const elsewhere = join(t.dir, 'elsewhere');
  mkdirSync(elsewhere);
  for (const [id, saved] of Object.entries(options.stored?.(t.project, elsewhere) ?? {})) {
    writeFileSync(join(state, `${id}.json`), JSON.stringify(saved));
  }
  return { host: t, state, elsewhere };
}

/** Two sessions in the project (one with a tool call and its diff) and one in another folder. */
const AT_THE_COMPUTER = (project: string, elsewhere: string) => ({
  'desk-older': {
    cwd: project,
    title: 'Rename the helpers',
    updatedAt: '2026-11-01T09:00:00.000Z',
    prompts: ['rename the helpers'],
  },
  'desk-newer': {
    cwd: project,
    title: 'Fix the flaky test',
    updatedAt: '2026-11-20T17:30:00.000Z',
    prompts: ['fix the flaky test'],
    history: [
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'fix the flaky ' } },
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'test' } },
      { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: 'hmm' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'The wait was too short.' } },
      {
        sessionUpdate: 'tool_call',
        toolCallId: 'desk-1',
        title: 'Edit test.js',
        kind: 'edit',
        status: 'completed',
        locations: [{ path: join(project, 'test.js') }],
        content: [{ type: 'diff', path: join(project, 'test.js'), oldText: 'wait(10)\n', newText: 'wait(100)\n' }],
      },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Fixed: it waits 100 ms now.' } },
    ],
  },
  'desk-elsewhere': { cwd: elsewhere, title: 'Other work', prompts: ['other'] },
});

const finished = (host: TestHost, id: string, nth = 1) => {
  let seen = 0;
  return host.waitFor(id, (e) => e.type === 'run.finished' && ++seen === nth) as Promise<Of<'run.finished'>>;
};

const said = (host: TestHost, id: string, role: 'user' | 'assistant') =>
  host.events(id).flatMap((e) => (e.type === 'message' && e.role === role ? [e.text] : []));

describe("an agent's own sessions", () => {
  it('are listed for a folder, newest first, with title, time and folder; another folder’s are not', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER, env: { SCRIPTED_ACP_PAGE: '1' } });
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    if (!listed.ok) throw new Error(listed.error.message);
    // Read over pages of one: the cursor was followed.
    expect(listed.value).toEqual({
      canContinue: true,
      showsHistory: true,
      truncated: false,
      sessions: [
        {
          id: 'desk-newer',
          title: 'Fix the flaky test',
          updatedAt: Date.parse('2026-11-20T17:30:00Z'),
          cwd: host.project,
        },
        {
          id: 'desk-older',
          title: 'Rename the helpers',
          updatedAt: Date.parse('2026-11-01T09:00:00Z'),
          cwd: host.project,
        },
      ],
    });
    // The listing's agent process is gone.
    expect(host.host.parts.agents.backend.liveAgents).toBe(0);
  });

  it('continuing one shows its conversation as the transcript, and new turns go on from it', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER });
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-newer',
      title: 'Fix the flaky test',
    });
    if (!continued.ok) throw new Error(continued.error.message);
    const id = continued.value.id;
    expect(continued.value).toMatchObject({ kind: 'acp', model: 'scripted', title: 'Fix the flaky test' });
    const loaded = await finished(host, id);
    expect(loaded).toMatchObject({ status: 'done', usageReported: false });

    expect(said(host, id, 'user')).toEqual(['fix the flaky test']);
    expect(said(host, id, 'assistant')).toEqual(['The wait was too short.', 'Fixed: it waits 100 ms now.']);
    const tool = host.events(id).find((e): e is Of<'tool.finished'> => e.type === 'tool.finished')!;
    expect(tool).toMatchObject({ ok: true, kind: 'edit' });
    expect(tool.diff).toContain('-wait(10)\n+wait(100)');
    const notice = host
      .events(id)
      .filter((e): e is Of<'notice'> => e.type === 'notice')
      .at(-1)!;
    expect(notice.text).toContain("Above is Scripted's earlier conversation");
    expect(host.events(id).some((e) => e.type === 'message.delta')).toBe(false);

    // The next message goes to the same session of the agent, which remembers what came before.
    host.host.parts.sessions.send(id, 'whoami');
    await finished(host, id, 2);
    expect(said(host, id, 'assistant').at(-1)).toBe('session desk-newer (loaded), prompt 2');

    // Listed again, it names the Tether session that continues it; continuing it again gives that one.
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    expect(listed.ok && listed.value.sessions.find((s) => s.id === 'desk-newer')?.continuedBy).toBe(id);
    const again = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-newer',
    });
    expect(again.ok && again.value.id).toBe(id);
    expect(host.host.parts.sessions.list().filter((s) => s.kind === 'acp')).toHaveLength(1);
  });

  it('once recorded, the conversation is not recorded again when the agent is started anew', async () => {
    // Loading (not resuming) again replays it all once more: the log has it already.
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER, env: { SCRIPTED_ACP_RESUME: '0' } });
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-newer',
    });
    if (!continued.ok) throw new Error(continued.error.message);
    const id = continued.value.id;
    await finished(host, id);
    host.host.parts.sessions.send(id, 'crash');
    expect((await finished(host, id, 2)).status).toBe('error');
    host.host.parts.sessions.send(id, 'whoami');
    await finished(host, id, 3);
    expect(said(host, id, 'assistant').at(-1)).toBe('session desk-newer (loaded), prompt 3');
    expect(said(host, id, 'user')).toEqual(['fix the flaky test', 'crash', 'whoami']);
    expect(said(host, id, 'assistant').filter((text) => text === 'Fixed: it waits 100 ms now.')).toHaveLength(1);
  });

  it('only a session the agent lists as run in the folder is continued: one from elsewhere is refused', async () => {
    // An agent that lists every session it has, whatever the folder: the host keeps this folder's
    // own, not one in a folder inside it (here a link out).
    const { host, state, elsewhere } = await hostWithStoredSessions({
      stored: AT_THE_COMPUTER,
      env: { SCRIPTED_ACP_LIST_ALL: '1' },
    });
    // A session in a folder inside this one, which is a link to another folder.
    symlinkSync(elsewhere, join(host.project, 'link'));
    writeFileSync(join(state, 'desk-linked.json'), JSON.stringify({ cwd: join(host.project, 'link'), prompts: ['x'] }));
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    expect(listed.ok && listed.value.sessions.map((s) => s.id)).toEqual(['desk-newer', 'desk-older']);
    for (const id of ['desk-elsewhere', 'never-was', 'desk-linked']) {
      const refused = await host.host.parts.agents.sessions.continue({
        agent: 'scripted',
        place: 'local',
        cwd: host.project,
        id,
      });
      expect(!refused.ok && refused.error).toMatchObject({
        code: 'not-found',
        message: `Scripted lists no session ${id} in ${host.project}`,
      });
    }
    const throughLink = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: join(host.project, 'link'),
      id: 'desk-linked',
    });
    expect(!throughLink.ok && throughLink.error.code).toBe('not-found');
    expect(host.host.parts.sessions.list()).toHaveLength(0);
    // The agent's own title is the session's when none is given.
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-older',
    });
    expect(continued.ok && continued.value.title).toBe('Rename the helpers');
  });

  it('two continues of the same session at once make one Tether session', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER });
    const query = { agent: 'scripted', place: 'local', cwd: host.project, id: 'desk-older' };
    const [a, b] = await Promise.all([
      host.host.parts.agents.sessions.continue(query),
      host.host.parts.agents.sessions.continue(query),
    ]);
    expect(a.ok && b.ok && a.value.id === b.value.id).toBe(true);
    expect(host.host.parts.sessions.list()).toHaveLength(1);
  });

  it('an agent that can only resume goes on from the session and says the conversation is not shown', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER, env: { SCRIPTED_ACP_LOAD: '0' } });
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    expect(listed.ok && listed.value).toMatchObject({ canContinue: true, showsHistory: false });
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-newer',
    });
    if (!continued.ok) throw new Error(continued.error.message);
    await finished(host, continued.value.id);
    expect(said(host, continued.value.id, 'assistant')).toEqual([]);
    const notice = host
      .events(continued.value.id)
      .filter((e): e is Of<'notice'> => e.type === 'notice')
      .at(-1)!;
    expect(notice.text).toContain('cannot replay it');
    host.host.parts.sessions.send(continued.value.id, 'whoami');
    await finished(host, continued.value.id, 2);
    expect(said(host, continued.value.id, 'assistant').at(-1)).toBe('session desk-newer (resumed), prompt 2');
  });

  it('an agent without session/list says continuing is not available, and why', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER, env: { SCRIPTED_ACP_LIST: '0' } });
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    expect(listed.ok && listed.value).toEqual({
      canContinue: false,
      reason: 'Scripted does not list its earlier sessions (no ACP session/list)',
      showsHistory: false,
      sessions: [],
      truncated: false,
    });
  });

  it('a session the agent cannot load ends the first run with its error; the next message starts afresh', async () => {
    const { host } = await hostWithStoredSessions({
      stored: (project, elsewhere) => ({
        ...AT_THE_COMPUTER(project, elsewhere),
        'desk-broken': { cwd: project, title: 'Broken', prompts: ['x'], loadError: 'the session file is damaged' },
      }),
      // Without resume, the next start loads it again, fails again, and starts afresh.
      env: { SCRIPTED_ACP_RESUME: '0' },
    });
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-broken',
    });
    if (!continued.ok) throw new Error(continued.error.message);
    const id = continued.value.id;
    const end = await finished(host, id);
    expect(end.status).toBe('error');
    expect(end.error).toContain('Scripted refused session/load: the session file is damaged');
    host.host.parts.sessions.send(id, 'whoami');
    await finished(host, id, 2);
    expect(said(host, id, 'assistant').at(-1)).toMatch(/\(new\), prompt 1$/);
    expect(
      host.events(id).some((e) => e.type === 'notice' && e.text.includes('could not load its earlier session')),
    ).toBe(true);
  });
});

describe('what an agent answers about its sessions is hostile', () => {
  it('10,000 sessions with hostile titles: the newest 100, each title one bounded line', async () => {
    const { host } = await hostWithStoredSessions({ env: { SCRIPTED_ACP_LIST_FLOOD: '10000:300' } });
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.truncated).toBe(true);
    expect(listed.value.sessions).toHaveLength(MAX_AGENT_SESSIONS);
    expect(listed.value.sessions[0]!.id).toBe('flood-9999');
    for (const session of listed.value.sessions) {
      expect(session.title.length).toBeLessThanOrEqual(MAX_AGENT_SESSION_TITLE);
      expect(session.title).not.toMatch(/[\n\t]/);
    }
    const first = listed.value.sessions[0]!.title;
    expect(first.startsWith('\u202Eevil\u001b[31m title 9999 second line x')).toBe(true);
    expect(first.endsWith('x…')).toBe(true);

    // The CLI shows the hidden characters as marks, never as what they do.
    const out = await runCommand(agentsSessionsCommand, [
      '--data-dir',
      join(host.dir, 'data'),
      '--cwd',
      host.project,
      'scripted',
    ]);
    expect(out.code).toBe(0);
    expect(out.out.includes('\u202E') || out.out.includes('\u001b')).toBe(false);
    expect(out.out).toContain('(the newest 100; scripted has more)');
  });

  it('titles of a megabyte are cut to one line', async () => {
    const { host } = await hostWithStoredSessions({ env: { SCRIPTED_ACP_LIST_FLOOD: '3:1000000' } });
    const listed = await host.host.parts.agents.sessions.list({ agent: 'scripted', place: 'local', cwd: host.project });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.sessions.map((s) => s.title.length)).toEqual([
      MAX_AGENT_SESSION_TITLE,
      MAX_AGENT_SESSION_TITLE,
      MAX_AGENT_SESSION_TITLE,
    ]);
  });

  it('a replay past the bound keeps the newest events and says how many were left out', async () => {
    const { host } = await hostWithStoredSessions({
      stored: AT_THE_COMPUTER,
      env: { SCRIPTED_ACP_HISTORY_FLOOD: '1500' },
    });
    const continued = await host.host.parts.agents.sessions.continue({
      agent: 'scripted',
      place: 'local',
      cwd: host.project,
      id: 'desk-newer',
    });
    if (!continued.ok) throw new Error(continued.error.message);
    await finished(host, continued.value.id);
    const events = host.events(continued.value.id);
    const messages = events.filter((e) => e.type === 'message');
    expect(messages.length).toBeLessThanOrEqual(MAX_HISTORY_EVENTS);
    // The newest part is kept: the session's own history, after the flood.
    expect(said(host, continued.value.id, 'assistant').at(-1)).toBe('Fixed: it waits 100 ms now.');
    expect(said(host, continued.value.id, 'user')).not.toContain('old question 0');
    expect(events.some((e) => e.type === 'notice' && /its oldest \d+ events are left out/.test(e.text))).toBe(true);
  });

  it(`at most ${MAX_LISTINGS} listings run at once; another is told busy`, async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER });
    const query = { agent: 'scripted', place: 'local', cwd: host.project };
    const all = await Promise.all(
      Array.from({ length: MAX_LISTINGS + 1 }, () => host.host.parts.agents.sessions.list(query)),
    );
    expect(all.filter((r) => r.ok)).toHaveLength(MAX_LISTINGS);
    expect(all.filter((r) => !r.ok && r.error.code === 'busy')).toHaveLength(1);
  });
});

describe('from the CLI and a device', () => {
  it('tether agents sessions lists them; tether agents continue makes the session', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER });
    const data = ['--data-dir', join(host.dir, 'data')];
    const listed = await runCommand(agentsSessionsCommand, [...data, '--cwd', host.project, 'scripted']);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`Sessions of scripted in ${host.project}, newest first:\n`);
    expect(listed.out).toMatch(/^ID +UPDATED +IN TETHER +TITLE$/m);
    expect(listed.out).toMatch(/^desk-newer +\S+ ago +Fix the flaky test$/m);
    expect(listed.out.indexOf('desk-newer')).toBeLessThan(listed.out.indexOf('desk-older'));
    expect(listed.out).not.toContain('desk-elsewhere');

    const continued = await runCommand(agentsContinueCommand, [
      ...data,
      '--cwd',
      host.project,
      '--json',
      'scripted',
      'desk-older',
    ]);
    expect(continued.code).toBe(0);
    const session = JSON.parse(continued.out) as { id: string; title: string };
    expect(session.title).toBe('Rename the helpers');
    await finished(host, session.id);
    expect(said(host, session.id, 'user')).toEqual(['rename the helpers']);

    const json = await runCommand(agentsSessionsCommand, [...data, '--cwd', host.project, '--json', 'scripted']);
    const list = JSON.parse(json.out) as { sessions: { id: string; continuedBy?: string }[] };
    expect(list.sessions.find((s) => s.id === 'desk-older')?.continuedBy).toBe(session.id);

    const unknown = await runCommand(agentsSessionsCommand, [...data, '--cwd', host.project, 'nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('no agent named nope');
  });

  it('a device lists and continues them with the chat scope; without it, it may not', async () => {
    const { host } = await hostWithStoredSessions({ stored: AT_THE_COMPUTER, remote: true });
    const watcher = await pairDevice(host, { scopes: ['watch'] });
    const watching = connectDevice(host, watcher);
    cleanups.push(() => watching.client.stop());
    const refused = await watching.client.call('agents.sessions', { agent: 'scripted', cwd: host.project });
    expect(!refused.ok && refused.error.code).toBe('forbidden');

    const device = await pairDevice(host, { scopes: ['watch', 'chat'] });
    const { client } = connectDevice(host, device);
    cleanups.push(() => client.stop());
    const outside = await client.call('agents.sessions', { agent: 'scripted', cwd: '/' });
    expect(!outside.ok && outside.error.code).toBe('forbidden');
    const listed = await client.call('agents.sessions', { agent: 'scripted', cwd: host.project });
    if (!listed.ok) throw new Error(listed.error.message);
    expect(listed.value.sessions.map((s) => s.id)).toEqual(['desk-newer', 'desk-older']);
    const continued = await client.call('sessions.continue', {
      agent: 'scripted',
      id: 'desk-newer',
      cwd: host.project,
      title: listed.value.sessions[0]!.title,
    });
    if (!continued.ok) throw new Error(continued.error.message);
    expect(continued.value.session.title).toBe('Fix the flaky test');
    await finished(host, continued.value.session.id);
    const sent = await client.call('sessions.send', { id: continued.value.session.id, text: 'whoami' });
    expect(sent.ok).toBe(true);
    await finished(host, continued.value.session.id, 2);
    expect(said(host, continued.value.session.id, 'assistant').at(-1)).toBe('session desk-newer (loaded), prompt 2');
  });
});
