import type { SessionStatus } from '@tether/shared-protocol';

export const SESSION_STATUS_TEXT: Record<SessionStatus, string> = {
  running: 'running',
  waiting: 'waiting for approval',
  idle: 'idle',
  error: 'error',
  interrupted: 'interrupted',
};

/** A run is going (streaming, running a tool, or waiting on an approval). */
export function isBusy(status: SessionStatus | undefined): boolean {
  return status === 'running' || status === 'waiting';
}
