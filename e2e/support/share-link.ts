import type { AppHost } from './app-host.js';
import { sessionEvents } from './app-host.js';
import { eventually, tether, tetherJson } from './host-process.js';

/** What `tether share SESSION --json` prints. */
export interface MadeLink {
  url: string;
  relayUrl?: string;
  link: { id: string; sessionId: string; expiresAt: number };
}

/** `tether share SESSION [args] --json`: a read-only link to the session. */
export function shareSession(host: AppHost, sessionId: string, args: string[] = []): Promise<MadeLink> {
  return tetherJson<MadeLink>(host.dataDir, ['share', sessionId, ...args]);
}

/** `tether share --revoke=ID` (an id may start with a dash). */
export async function revokeLink(host: AppHost, id: string): Promise<void> {
  const result = await tether(host.dataDir, ['share', `--revoke=${id}`]);
  if (result.code !== 0) throw new Error(`tether share --revoke failed: ${result.stderr}`);
}

/** `tether sessions new --cwd DIR TEXT --json`: a session started at the computer; its id. */
export async function startSessionAtComputer(host: AppHost, text: string): Promise<string> {
  const made = await tetherJson<{ id: string }>(host.dataDir, ['sessions', 'new', '--cwd', host.dataDir, text]);
  return made.id;
}

/**
 * Waits for the session's run to end (read from the session list: a log of thousands of events is
 * too big to poll), then reads its whole event log once.
 */
export async function runFinished(
  host: AppHost,
  sessionId: string,
  timeoutMs = 180_000,
): Promise<Record<string, unknown>[]> {
  await eventually(
    async () => {
      const list = await tetherJson<{ id: string; status: string }[]>(host.dataDir, ['sessions']);
      const status = list.find((s) => s.id === sessionId)?.status;
      return status === 'idle' || status === 'error' || status === 'interrupted' ? true : undefined;
    },
    timeoutMs,
    'the run to finish',
  );
  const events = await sessionEvents(host, sessionId);
  if (!events.some((e) => e.type === 'run.finished')) throw new Error('the session is idle without a finished run');
  return events;
}
