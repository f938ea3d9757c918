import type { SessionEventBody } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../store/database.js';
import { SteeringStore } from '../../store/steering-store.js';
import type { RunProgress } from '../session-backend.js';
import type { AcpConnection } from './acp-connection.js';
import { AcpSteer } from './acp-steer.js';

/** An agent's process as steering sees it: what it was asked, answering as `answer` says. */
function agentProcess(answer: (method: string, params: Record<string, string>) => Promise<unknown>) {
  const asked: { method: string; params: Record<string, string> }[] = [];
  let killed = 0;
  const connection = {
    agent: {
      request: (method: string, params: Record<string, string>) => {
        asked.push({ method, params });
        return answer(method, params);
      },
    },
    ended: new Promise<string>(() => undefined),
    kill: () => killed++,
  } as unknown as AcpConnection;
  return { connection, asked, killed: () => killed };
}

const GEMINI_MODES = (current: string) => ({
  modes: {
    currentModeId: current,
    availableModes: [
      { id: 'default', name: 'Default' },
      { id: 'autoEdit', name: 'Auto Edit' },
      { id: 'yolo', name: 'YOLO' },
      { id: 'plan', name: 'Plan' },
    ],
  },
});

function setup(withheld?: string[]) {
  const db = openDatabase(':memory:');
  db.prepare(
    "INSERT INTO sessions (id, title, kind, place, cwd, model, status, created_at, updated_at) VALUES ('s1', 't', 'acp', 'local', '/', 'a', 'idle', 0, 0)",
  ).run();
  const store = new SteeringStore(db);
  const said: SessionEventBody[] = [];
  const progress: RunProgress[] = [];
  let announced = 0;
  const steer = new AcpSteer({
    store,
    sessionId: 's1',
    agent: 'a',
    title: 'Agent',
    clock: new ManualClock(),
    sink: { append: (e) => said.push(e), announce: () => announced++, progress: (p) => progress.push(p) },
    ...(withheld ? { withheld } : {}),
  });
  return { store, steer, said, progress, announced: () => announced };
}

describe('what an agent says of its steering, as it runs', () => {
  it('keeps its commands, for the session and as the agent’s last offers', () => {
    const { store, steer } = setup();
    expect(
      steer.update({
        sessionUpdate: 'available_commands_update',
        availableCommands: [
          { name: 'review', description: 'Review' },
          { name: '../../etc', description: 'x' },
        ],
      }),
    ).toBe(true);
    expect(store.get('s1').commands.map((c) => c.name)).toEqual(['review']);
    expect(store.agentOffers('a')?.commands.map((c) => c.name)).toEqual(['review']);
  });

  it('says a mode it switches to once, and takes no empty or repeated mode for one', () => {
    const { store, steer, said, announced } = setup();
    store.setOffers('s1', { modes: [{ id: 'plan', name: 'Plan Mode' }] });
    steer.update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' });
    steer.update({ sessionUpdate: 'current_mode_update', currentModeId: 'plan' });
    steer.update({ sessionUpdate: 'current_mode_update', currentModeId: '' });
    expect(store.get('s1').mode).toEqual({ id: 'plan', name: 'Plan Mode' });
    expect(said).toEqual([{ type: 'notice', level: 'info', text: 'Agent switched to the mode Plan Mode.' }]);
    expect(announced()).toBe(1);
    // A mode it never offered is taken by its id, on one line.
    steer.update({ sessionUpdate: 'current_mode_update', currentModeId: 'odd\nmode' });
    expect(store.get('s1').mode).toEqual({ id: 'odd\nmode', name: 'odd mode' });
  });

  it('takes how full its context is from usage_update, never what it spent', () => {
    const { steer, progress } = setup();
    steer.update({ sessionUpdate: 'usage_update', used: 30.5, size: 258_400, cost: { amount: 5, currency: 'USD' } });
    expect(progress).toEqual([{ context: { tokens: 30, window: 258_400 } }]);
    expect(steer.update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'x' } })).toBe(false);
  });
});

describe('a mode in which the agent would run its own tools without asking', () => {
  it('is never offered, nor taken when chosen', async () => {
    const { store, steer, said } = setup(['yolo']);
    store.setMode('s1', { id: 'yolo', name: 'YOLO' });
    const agent = agentProcess(() => Promise.resolve({}));
    await steer.answered(GEMINI_MODES('default'), agent.connection, 'acp-1');
    expect(store.get('s1').modes.map((m) => m.id)).toEqual(['default', 'autoEdit', 'plan']);
    expect(store.agentOffers('a')?.modes.map((m) => m.id)).toEqual(['default', 'autoEdit', 'plan']);
    expect(agent.asked).toEqual([]);
    expect(store.get('s1').mode?.id).toBe('default');
    const last = said.at(-1) as { level: string; text: string };
    expect(last.level).toBe('warning');
    expect(last.text).toContain('did not take the mode YOLO');
  });

  it('an agent that starts in one is asked out of it before anything runs', async () => {
    const { store, steer } = setup(['yolo']);
    const agent = agentProcess(() => Promise.resolve({}));
    await steer.answered(GEMINI_MODES('yolo'), agent.connection, 'acp-1');
    expect(agent.asked).toEqual([{ method: 'session/set_mode', params: { sessionId: 'acp-1', modeId: 'default' } }]);
    expect(store.get('s1').mode?.id).toBe('default');
  });

  it('an agent that switches itself into one is switched back, and said so', async () => {
    const { store, steer, said } = setup(['yolo']);
    const agent = agentProcess(() => Promise.resolve({}));
    await steer.answered(GEMINI_MODES('plan'), agent.connection, 'acp-1');
    expect(steer.update({ sessionUpdate: 'current_mode_update', currentModeId: 'yolo' })).toBe(true);
    await vi.waitFor(() => expect(agent.asked).toHaveLength(1));
    expect(agent.asked[0]).toEqual({ method: 'session/set_mode', params: { sessionId: 'acp-1', modeId: 'plan' } });
    await vi.waitFor(() => expect(said.at(-1)?.type).toBe('notice'));
    const last = said.at(-1) as { level: string; text: string };
    expect(last.level).toBe('warning');
    expect(last.text).toContain(
      'switched itself to the mode yolo, where it would run its own tools without asking; Tether switched it back to Plan',
    );
    expect(store.get('s1').mode?.id).toBe('plan');
    expect(agent.killed()).toBe(0);
  });

  it('one that will not switch back is stopped', async () => {
    const { steer, said } = setup(['yolo']);
    const agent = agentProcess((method) =>
      method === 'session/set_mode' ? Promise.reject(new Error('no')) : Promise.resolve({}),
    );
    await steer.answered(GEMINI_MODES('default'), agent.connection, 'acp-1');
    steer.update({ sessionUpdate: 'current_mode_update', currentModeId: 'yolo' });
    await vi.waitFor(() => expect(agent.killed()).toBe(1));
    const last = said.at(-1) as { level: string; text: string };
    expect(last.level).toBe('error');
    expect(last.text).toContain('Tether stopped it');
  });
});
