import type { SessionEventBody } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../store/database.js';
import { SteeringStore } from '../../store/steering-store.js';
import type { RunProgress } from '../session-backend.js';
import { AcpSteer } from './acp-steer.js';

function setup() {
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
