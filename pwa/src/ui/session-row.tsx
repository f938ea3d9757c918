import type { SessionSummary } from '@tether/shared-protocol';
import { relativeTime } from './relative-time.js';
import { nowLine } from './run-glance.js';
import { formatRoute } from '../lib/route.js';
import { sessionStatusText } from './session-status.js';

/** A session in a host's list: title, state, place and folder, the last line, waiting approvals. */
export function SessionRow({
  hostId,
  session,
  current,
  now,
  machineOffline = false,
}: {
  hostId: string;
  session: SessionSummary;
  current: boolean;
  now: number;
  /** The session runs on a machine that is offline now: its tools wait for it. */
  machineOffline?: boolean;
}) {
  const line = nowLine(session);
  const paused = session.activity?.paused === true && session.status !== 'running' && session.status !== 'waiting';
  return (
    <li>
      <a
        class="row"
        href={formatRoute({ name: 'session', hostId, sessionId: session.id })}
        aria-current={current ? 'page' : undefined}
        data-session-id={session.id}
      >
        <span class="row-head">
          <span class="row-title">{session.title}</span>
          {session.pendingApprovals > 0 && (
            <span class="badge" aria-label={`${session.pendingApprovals} waiting for approval`}>
              {session.pendingApprovals}
            </span>
          )}
          {paused ? (
            <span class="chip waiting" data-paused="true">
              waiting for you
            </span>
          ) : (
            <span class={`chip ${session.status}`} data-session-status={session.status}>
              {sessionStatusText(session)}
            </span>
          )}
        </span>
        <span class="row-meta" title={session.cwd}>
          {session.kind === 'terminal' && <span class="row-kind">terminal · </span>}
          {session.place === 'local' ? 'this computer' : session.place}
          {machineOffline && (
            <span class="stale" data-machine-offline>
              {' '}
              (offline)
            </span>
          )}{' '}
          · {session.cwd} · {relativeTime(session.updatedAt, now)}
        </span>
        {line && <span class="row-now">{line}</span>}
        {session.lastLine && <span class="row-line">{session.lastLine}</span>}
      </a>
    </li>
  );
}
