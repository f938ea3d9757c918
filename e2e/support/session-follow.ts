import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { TETHER_BIN, hostDataDir } from './host-process.js';

/** One event of a session's log as `tether sessions show --follow --json` prints it. */
export type FollowedEvent = Record<string, unknown> & { type: string; seq: number };

/**
 * A session followed live through the control CLI (`tether sessions show ID --follow --json`):
 * every event as it comes, with the time (performance.now) it arrived, and waits on them.
 */
export interface SessionFollow {
  events: FollowedEvent[];
  /** Milliseconds (performance.now) each event arrived, by index in `events`. */
  times: number[];
  /** Waits for the `nth` event (1: the first) matching `predicate`, counting those seen already. */
  waitFor(
    predicate: (event: FollowedEvent) => boolean,
    options?: { nth?: number; timeoutMs?: number },
  ): Promise<FollowedEvent>;
  stop(): void;
}

export function followSession(dataDir: string, sessionId: string): SessionFollow {
  const child: ChildProcess = spawn(
    process.execPath,
    [TETHER_BIN, 'sessions', 'show', sessionId, '--follow', '--json', '--data-dir', hostDataDir(dataDir)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const events: FollowedEvent[] = [];
  const times: number[] = [];
  const waiters = new Set<() => void>();
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      events.push(JSON.parse(line) as FollowedEvent);
      times.push(performance.now());
    } catch {
      return;
    }
    for (const wake of [...waiters]) wake();
  });
  return {
    events,
    times,
    waitFor: (predicate, options = {}) => {
      const nth = options.nth ?? 1;
      const find = () => events.filter(predicate)[nth - 1];
      const found = find();
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(
            new Error(
              `the session did not log the expected event; it logged: ${events.map((e) => e.type).join(', ')}; stderr: ${stderr}`,
            ),
          );
        }, options.timeoutMs ?? 60_000);
        const wake = () => {
          const event = find();
          if (!event) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(event);
        };
        waiters.add(wake);
      });
    },
    stop: () => {
      child.kill();
    },
  };
}
