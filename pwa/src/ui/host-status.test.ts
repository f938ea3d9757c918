import { describe, expect, it } from 'vitest';
import { hostStatus } from './host-status.js';

const record = { lastSeenAt: 0 };

describe('hostStatus', () => {
  it('says connected, connecting, offline with last seen, or refused', () => {
    expect(hostStatus({ name: 'open' }, record, true, 1000).kind).toBe('connected');
    expect(hostStatus({ name: 'connecting', attempt: 0 }, record, true, 1000).text).toBe('Connecting…');
    const waiting = {
      name: 'waiting' as const,
      attempt: 5,
      retryAt: 0,
      error: { code: 'unavailable' as const, message: '' },
    };
    expect(hostStatus(waiting, record, true, 5 * 60_000).text).toBe('Offline · last seen 5 min ago');
    expect(hostStatus({ name: 'connecting', attempt: 0 }, record, false, 1000).kind).toBe('offline');
    const refused = { name: 'refused' as const, error: { code: 'revoked' as const, message: '' } };
    expect(hostStatus(refused, record, true, 0)).toEqual({
      kind: 'refused',
      text: 'This device was removed from this computer',
    });
    expect(
      hostStatus(
        { name: 'idle' },
        { lastSeenAt: null, refused: { code: 'handshake-failed', message: '', at: 0 } },
        true,
        0,
      ).kind,
    ).toBe('refused');
  });
});
