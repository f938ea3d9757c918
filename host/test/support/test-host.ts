import type { SessionEvent } from '@tether/shared-protocol';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostOptions } from '../../src/host.js';
import { Host } from '../../src/host.js';

/** A real host in this process, on a fresh data dir with a project folder, stopped by `close`. */
export interface TestHost {
  host: Host;
  dir: string;
  project: string;
  /** Resolves with the first event (already logged or to come) matching `predicate`. */
  waitFor(sessionId: string, predicate: (event: SessionEvent) => boolean, timeoutMs?: number): Promise<SessionEvent>;
  events(sessionId: string): SessionEvent[];
  /** The current pairing link (the host must be listening). */
  pairLink(): string;
  /** The listener's base URL (the host must be listening). */
  url: string;
  close(): Promise<void>;
}

/** Remote control on 127.0.0.1, a free port, roots = the test's temp folder. */
export const LOCAL_REMOTE = { bind: '127.0.0.1', port: 0, roots: [] as string[] };

export async function startTestHost(
  options: Partial<HostOptions> & { env?: NodeJS.ProcessEnv } = {},
): Promise<TestHost> {
  const dir = mkdtempSync(join(tmpdir(), 'tether-host-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'notes.txt'), 'first line\nsecond line\n');
  const started = await Host.start({
    dataDir: join(dir, 'data'),
    demoDelayMs: 0,
    retryBaseDelayMs: 10,
    // No test host keeps the machine running the tests awake, unless the test says how.
    keepAwake: { enabled: false },
    ...options,
    ...(options.remote
      ? { remote: { ...options.remote, roots: options.remote.roots.length > 0 ? options.remote.roots : [dir] } }
      : {}),
    env: options.env ?? {},
  });
  if (!started.ok) throw new Error(started.error.message);
  const host = started.value;
  const events = (sessionId: string) => [...host.parts.log.readAll(sessionId)];
  return {
    host,
    dir,
    project,
    events,
    pairLink: () => {
      const link = host.parts.reach.pairLink();
      if (!link.ok) throw new Error(link.error.message);
      return link.value.link;
    },
    get url() {
      if (!host.parts.reach.listener) throw new Error(`the test host is not listening: ${host.parts.reach.message}`);
      return host.parts.reach.listener.url;
    },
    waitFor: (sessionId, predicate, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const found = events(sessionId).find(predicate);
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          stop();
          reject(
            new Error(
              `timed out; events so far: ${events(sessionId)
                .map((e) => e.type)
                .join(', ')}`,
            ),
          );
        }, timeoutMs);
        const stop = host.parts.log.subscribe('test', (event) => {
          if (event.sessionId !== sessionId || !predicate(event)) return;
          clearTimeout(timer);
          stop();
          resolve(event);
        });
      }),
    close: async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
