import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnInhibitor } from './sleep-inhibitor.js';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const ended = (inhibitor: ReturnType<typeof spawnInhibitor>) =>
  new Promise<string>((resolve) => inhibitor.onEnd(resolve));

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('the real inhibitor process', () => {
  it('runs until stopped, and is gone after', async () => {
    // A stand-in with the same life as an inhibitor: it runs until it is told to stop.
    const held = spawnInhibitor({
      tool: 'stand-in',
      file: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1000)'],
    });
    expect(held.pid).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(held.pid!)).toBe(true);
    held.stop();
    await until(() => !alive(held.pid!));
    expect(alive(held.pid!)).toBe(false);
  });

  it('says a missing tool is not installed', async () => {
    const missing = spawnInhibitor({ tool: 'caffeinate', file: 'tether-no-such-inhibitor', args: [] });
    expect(await ended(missing)).toBe('caffeinate is not installed');
  });

  it('says why one that cannot hold ended, in its own words', async () => {
    const failing = spawnInhibitor({
      tool: 'stand-in',
      file: process.execPath,
      args: ['-e', 'console.error("Failed to connect to bus"); process.exit(1)'],
    });
    expect(await ended(failing)).toBe('stand-in ended (exit 1): Failed to connect to bus');
  });

  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/systemd-inhibit'))(
    'runs systemd-inhibit itself: it holds, or says why it cannot (no system bus in a container)',
    async () => {
      const { inhibitorFor } = await import('./sleep-inhibitor.js');
      const command = inhibitorFor('linux', process.pid);
      if (typeof command === 'string') throw new Error(command);
      const real = spawnInhibitor(command);
      const outcome = await Promise.race([
        ended(real),
        new Promise<string>((r) => setTimeout(() => r('holding'), 1000)),
      ]);
      real.stop();
      expect(outcome === 'holding' || outcome.startsWith('systemd-inhibit ended')).toBe(true);
    },
  );
});
