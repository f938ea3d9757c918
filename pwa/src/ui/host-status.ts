import type { ClientState } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import { relativeTime } from './relative-time.js';

export type HostStatusKind = 'connected' | 'connecting' | 'offline' | 'refused';

/** Failed attempts before "connecting…" becomes "offline": about 2 s of backoff. */
const ATTEMPTS_BEFORE_OFFLINE = 2;

/** What a host's row says about its connection. */
export function hostStatus(
  state: ClientState,
  record: Pick<HostRecord, 'lastSeenAt' | 'refused'>,
  online: boolean,
  now: number,
): { kind: HostStatusKind; text: string } {
  const refusedCode = state.name === 'refused' ? state.error.code : record.refused?.code;
  if (refusedCode) return { kind: 'refused', text: refusedText(refusedCode) };
  const seen = record.lastSeenAt === null ? '' : ` · last seen ${relativeTime(record.lastSeenAt, now)}`;
  switch (state.name) {
    case 'open':
      return { kind: 'connected', text: 'Connected' };
    case 'connecting':
      return online ? { kind: 'connecting', text: 'Connecting…' } : { kind: 'offline', text: `Offline${seen}` };
    case 'waiting':
      // Unsealed refusals are retried (anyone on the path could forge them), but said plainly.
      if (state.error.code === 'handshake-failed' || state.error.code === 'version-unsupported')
        return { kind: 'refused', text: `${refusedText(state.error.code)} (still trying)` };
      return online && state.attempt < ATTEMPTS_BEFORE_OFFLINE
        ? { kind: 'connecting', text: 'Connecting…' }
        : { kind: 'offline', text: `Offline${seen}` };
    case 'refused':
      return { kind: 'refused', text: refusedText(state.error.code) };
    case 'idle':
    case 'stopped':
      return { kind: 'offline', text: `Offline${seen}` };
  }
}

export function refusedText(code: string): string {
  switch (code) {
    case 'revoked':
      return 'This device was removed from this computer';
    case 'version-unsupported':
      return 'Needs an update: the computer speaks another protocol version';
    default:
      return 'This computer no longer knows this device';
  }
}
