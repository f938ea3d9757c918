import type { ErrorCode } from './errors.js';

/** The statuses an error answer over HTTP may carry. */
export type HttpErrorStatus = 400 | 401 | 403 | 404 | 408 | 410 | 413 | 429 | 500 | 503 | 504;

/**
 * The HTTP status of an error answer, by its code: one table for the host's `/rc/*` endpoints, a
 * host's answers forwarded through a relay, and the relay's own. Every code is listed, so a new one
 * needs a deliberate status. Clients branch on the code in the body; the status is for proxies,
 * logs and `fetch().ok`: 401 a key that did not prove itself, 403 a refusal a retry will not change,
 * 429 and 503 worth retrying later, 504 a host that did not answer in time.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, HttpErrorStatus>> = {
  malformed: 400,
  'too-large': 413,
  'version-unsupported': 400,
  'link-malformed': 400,
  'link-truncated': 400,
  'link-version': 400,
  'pair-malformed': 400,
  'pair-failed': 400,
  'pair-denied': 403,
  'pair-expired': 410,
  'pair-timeout': 408,
  'pair-limit': 403,
  'handshake-malformed': 400,
  'handshake-failed': 401,
  'handshake-stale': 401,
  'handshake-replayed': 401,
  'frame-malformed': 400,
  'frame-wrong-key': 400,
  'frame-tampered': 400,
  'frame-replayed': 400,
  'frame-reordered': 400,
  'frame-too-large': 400,
  'channel-closed': 400,
  'ticket-malformed': 400,
  'ticket-forged': 400,
  'ticket-expired': 400,
  'ticket-wrong-host': 400,
  'ticket-key-mismatch': 400,
  'host-offline': 503,
  'bad-request': 400,
  'unknown-method': 400,
  'invalid-params': 400,
  forbidden: 403,
  'not-found': 404,
  'already-resolved': 400,
  conflict: 400,
  unsupported: 400,
  'rate-limited': 429,
  busy: 503,
  timeout: 504,
  disconnected: 503,
  revoked: 400,
  'slow-consumer': 400,
  unavailable: 503,
  internal: 500,
  'quota-exceeded': 413,
  'hash-mismatch': 400,
  'outside-root': 400,
  'not-a-file': 400,
  'not-a-folder': 400,
  binary: 400,
  io: 400,
  unreachable: 400,
};

export function httpStatusFor(code: ErrorCode): HttpErrorStatus {
  return HTTP_STATUS[code];
}
