import { afterEach, describe, expect, it } from 'vitest';
import type { TestHost } from '../../test/support/test-host.js';
import { startTestHost } from '../../test/support/test-host.js';
import { spawnInhibitor as spawnReal } from './sleep-inhibitor.js';

let t: TestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = check();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('the host keeps the computer awake', () => {
  it('holds a real inhibitor process while a run is active, lets it go when the run ends, and says so in its status', async () => {
    const pids: number[] = [];
    t = await startTestHost({
      keepAwake: {
        // A stand-in for systemd-inhibit with the same life: it runs until it is stopped.
        command: { tool: 'stand-in', file: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
        spawner: (command) => {
          const running = spawnReal(command);
          if (running.pid !== undefined) pids.push(running.pid);
          return running;
        },
      },
    });
    const status = () => {
      const result = t!.host.parts.controlHandlers['host.status']({}, { kind: 'local' } as never);
      if (!('ok' in result) || !result.ok) throw new Error('no status');
      return result.value.keepAwake!;
    };
    expect(status()).toMatchObject({ state: 'idle', tool: 'stand-in' });

    // The demo model asks for an approval: the run waits for the phone, and the computer stays up.
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
    await until(() => (status().state === 'holding' ? true : undefined), 'the inhibitor');
    expect(pids).toHaveLength(1);
    expect(alive(pids[0]!)).toBe(true);
    expect(status().message).toBe('1 run active');

    t.host.parts.sessions.interrupt(created.value.id);
    await until(() => (status().state === 'idle' ? true : undefined), 'the release');
    await until(() => (alive(pids[0]!) ? undefined : true), 'the inhibitor to end');
  });

  it('holds nothing with --no-keep-awake', async () => {
    let spawned = 0;
    t = await startTestHost({
      keepAwake: {
        enabled: false,
        spawner: () => (spawned++, { pid: 1, stop: () => undefined, onEnd: () => undefined }),
      },
    });
    const created = await t.host.parts.sessions.create({ cwd: t.project, text: 'hello' });
    if (!created.ok) throw new Error(created.error.message);
    await t.waitFor(created.value.id, (e) => e.type === 'approval.requested');
    expect(spawned).toBe(0);
  });
});
