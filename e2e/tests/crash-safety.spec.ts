import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { eventually, makeDataDir, removeDataDir, startHost, tether, tetherJson } from '../support/host-process.js';

interface Event {
  type: string;
  seq: number;
  status?: string;
  level?: string;
  text?: string;
}

test('kill -9 mid-run: the transcript survives, the run is interrupted, the CLI works', async () => {
  const dataDir = makeDataDir();
  const project = join(dataDir, 'project');
  mkdirSync(project);
  try {
    // A slow demo model: the reply is still streaming when the host is killed.
    const first = await startHost(dataDir, [], { TETHER_DEMO_DELAY_MS: '150' });
    const id = (await tether(dataDir, ['sessions', 'new', 'hello'], { cwd: project })).stdout.split('\n')[0]!;
    const before = await eventually(async () => {
      const events = await tetherJson<Event[]>(dataDir, ['sessions', 'show', id]);
      return events.filter((e) => e.type === 'message.delta').length >= 3 ? events : undefined;
    });
    await first.stop('SIGKILL');

    const second = await startHost(dataDir);
    try {
      const after = await tetherJson<Event[]>(dataDir, ['sessions', 'show', id]);
      // Everything recorded before the kill is there, in order, without gaps.
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.map((e) => e.seq)).toEqual(after.map((_, i) => i + 1));
      const tail = after.slice(before.length);
      expect(tail.some((e) => e.type === 'notice' && /interrupted/.test(e.text ?? ''))).toBe(true);
      expect(tail.find((e) => e.type === 'run.finished')).toMatchObject({ status: 'interrupted' });
      const [session] = await tetherJson<{ status: string }[]>(dataDir, ['sessions']);
      expect(session!.status).toBe('interrupted');

      // The host works: a new message starts a new run.
      expect((await tether(dataDir, ['sessions', 'send', id, 'go on'])).code).toBe(0);
      await eventually(async () =>
        (await tetherJson<{ id: string }[]>(dataDir, ['approvals'])).length > 0 ? true : undefined,
      );
    } finally {
      await second.stop();
    }
  } finally {
    removeDataDir(dataDir);
  }
});
