import * as v from 'valibot';

/**
 * Every error that crosses a boundary carries one of these codes. Clients branch on the code,
 * never on the message. The list is closed: adding a code is a protocol change (docs/protocol.md).
 */
export const ERROR_CODES = [
  // Generic decoding
  'malformed',
  'too-large',
  'version-unsupported',
  // Pairing links
  'link-malformed',
  'link-truncated',
  'link-version',
  // Pairing messages
  'pair-malformed',
  'pair-failed',
  'pair-denied',
  'pair-expired',
  'pair-timeout',
  'pair-limit',
  // Handshake and one-shot calls
  'handshake-malformed',
  'handshake-failed',
  'handshake-stale',
  'handshake-replayed',
  // Sealed frames
  'frame-malformed',
  'frame-wrong-key',
  'frame-tampered',
  'frame-replayed',
  'frame-reordered',
  'frame-too-large',
  'channel-closed',
  // Relay: tickets and reaching a host through a relay
  'ticket-malformed',
  'ticket-forged',
  'ticket-expired',
  'ticket-wrong-host',
  'ticket-key-mismatch',
  'host-offline',
  // Requests
  'bad-request',
  'unknown-method',
  'invalid-params',
  'forbidden',
  'not-found',
  'already-resolved',
  'conflict',
  'unsupported',
  'rate-limited',
  'busy',
  'timeout',
  'disconnected',
  'revoked',
  'slow-consumer',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorCodeSchema = v.picklist(ERROR_CODES);

export const ProtocolErrorSchema = v.object({
  code: ErrorCodeSchema,
  message: v.pipe(v.string(), v.maxLength(2000)),
  retryable: v.optional(v.boolean()),
});

export type ProtocolError = v.InferOutput<typeof ProtocolErrorSchema>;

/** Codes worth retrying as they are: a later attempt may succeed without any change. */
const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  'timeout',
  'disconnected',
  'busy',
  'rate-limited',
  'unavailable',
  'slow-consumer',
  'host-offline',
]);

export function protocolError(code: ErrorCode, message: string): ProtocolError {
  return RETRYABLE.has(code) ? { code, message, retryable: true } : { code, message };
}

/** Expected failures are values: every decoder and opener returns one of these. */
export type Result<T, E = ProtocolError> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function fail(code: ErrorCode, message: string): { ok: false; error: ProtocolError } {
  return { ok: false, error: protocolError(code, message) };
}

/** Thrown only for a programming error (a state machine used out of order), never for input. */
export class BugError extends Error {
  override name = 'BugError';
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
