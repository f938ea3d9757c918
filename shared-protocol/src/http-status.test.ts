import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './errors.js';
import { HTTP_STATUS, httpStatusFor } from './http-status.js';

/** Every code that is not a plain 400, pinned: a change here changes what proxies and clients see. */
const NOT_400: Record<string, number> = {
  'too-large': 413,
  'quota-exceeded': 413,
  'pair-denied': 403,
  'pair-limit': 403,
  forbidden: 403,
  'handshake-failed': 401,
  'handshake-stale': 401,
  'handshake-replayed': 401,
  'not-found': 404,
  'pair-timeout': 408,
  'pair-expired': 410,
  'rate-limited': 429,
  internal: 500,
  'host-offline': 503,
  busy: 503,
  disconnected: 503,
  unavailable: 503,
  timeout: 504,
};

describe('httpStatusFor', () => {
  it.each(ERROR_CODES.map((code) => [code, NOT_400[code] ?? 400] as const))('%s answers %i', (code, status) => {
    expect(httpStatusFor(code)).toBe(status);
  });

  it('lists every code and no other', () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });
});
