import type { SessionKind, SessionStatus } from '@tether/shared-protocol';

const SESSION_STATUS_TEXT: Record<SessionStatus, string> = {
  running: 'running',
  waiting: 'waiting for approval',
  idle: 'idle',
  error: 'error',
  interrupted: 'interrupted',
};

/** A session's state in words. A wrapped program that waits stopped at a question, not an approval. */
export function sessionStatusText(session: { status: SessionStatus; kind: SessionKind }): string {
  if (session.kind === 'terminal') {
    if (session.status === 'waiting') return 'waiting for you';
    if (session.status === 'idle') return 'exited';
  }
  return SESSION_STATUS_TEXT[session.status];
}

/** A run is going (streaming, running a tool, or waiting on an approval). */
export function isBusy(status: SessionStatus | undefined): boolean {
  return status === 'running' || status === 'waiting';
}
