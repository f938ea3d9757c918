import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import type { LiveAgent } from './acp-agent-pool.js';
import { AcpAgentPool } from './acp-agent-pool.js';
import type { AcpConnection } from './acp-connection.js';
import type { AgentSpec } from './agent-config.js';

const SPEC: AgentSpec = {
  name: 'scripted',
  title: 'Scripted',
  command: 'agent',
  args: [],
  env: {},
  passEnv: [],
  allowEnv: [],
};
const KEEP_MS = 60_000;

/** An agent with as much of a connection as the pool reads: whether it ended, and `kill`. */
function agent(sessionId: string): LiveAgent & { killed: () => boolean } {
  let killed = false;
  const connection = {
    get isEnded() {
      return killed;
    },
    closedSignal: new AbortController().signal,
    kill: () => void (killed = true),
    waitEnded: () => Promise.resolve(),
  } as unknown as AcpConnection;
  return {
    sessionId,
    spec: SPEC,
    place: 'local',
    cwd: '/w',
    connection,
    acpSessionId: 'acp-1',
    busy: true,
    idleTimer: undefined,
    killed: () => killed,
  };
}

function setup() {
  const clock = new ManualClock();
  return { clock, pool: new AcpAgentPool(clock, { keepIdleMs: KEEP_MS, maxLiveAgents: 2, cancelGraceMs: 1000 }) };
}

describe('the agent pool', () => {
  it('keeps an agent between runs for the keep time, then ends it', () => {
    const { clock, pool } = setup();
    const a = agent('s1');
    pool.add(a);
    pool.release(a);
    clock.advance(KEEP_MS - 1);
    expect(pool.reusable('s1', 'local', SPEC)).toBe(a);
    pool.hold(a);
    clock.advance(KEEP_MS * 2);
    expect(a.killed()).toBe(false);
    pool.release(a);
    clock.advance(KEEP_MS);
    expect(a.killed()).toBe(true);
    expect(pool.size).toBe(0);
  });

  it('ends a kept agent that cannot serve the run (another place or agent)', () => {
    const { pool } = setup();
    const a = agent('s1');
    pool.add(a);
    pool.release(a);
    expect(pool.reusable('s1', 'laptop', SPEC)).toBeUndefined();
    expect(a.killed()).toBe(true);
  });

  it('makes room by ending an idle agent, never a busy one', () => {
    const { pool } = setup();
    const [a, b] = [agent('s1'), agent('s2')];
    pool.add(a);
    pool.add(b);
    expect(pool.makeRoom()).toBe(false);
    pool.release(b);
    expect(pool.makeRoom()).toBe(true);
    expect([a.killed(), b.killed()]).toEqual([false, true]);
  });

  it('ends every agent when closed', async () => {
    const { pool } = setup();
    const a = agent('s1');
    pool.add(a);
    await pool.close();
    expect(a.killed()).toBe(true);
    expect(pool.isClosed).toBe(true);
  });
});
