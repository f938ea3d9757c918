import * as v from 'valibot';

/** Relay: tickets, and reaching a host through a relay (a relay counts its refusals by them too). */
export const RELAY_TICKET_CODES = [
  'ticket-malformed',
  'ticket-forged',
  'ticket-expired',
  'ticket-wrong-host',
  'ticket-key-mismatch',
  'host-offline',
] as const;

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
  ...RELAY_TICKET_CODES,
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
  // Attachments: the host's blob store is full; an upload's bytes do not match its hash
  'quota-exceeded',
  'hash-mismatch',
  // Execution: files, commands and processes on a computer (the host's own or a machine's)
  'outside-root',
  'not-a-file',
  'not-a-folder',
  'binary',
  'io',
  'unreachable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ErrorCodeSchema = v.picklist(ERROR_CODES);

/** The longest error message the wire carries; a longer one is cut to it when it is encoded. */
export const MAX_ERROR_MESSAGE = 2000;

export const ProtocolErrorSchema = v.object({
  code: ErrorCodeSchema,
  message: v.pipe(v.string(), v.maxLength(MAX_ERROR_MESSAGE)),
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
  'unreachable',
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

/**
 * What a file operation of an execution context fails with: a path that leads out of its root, a
 * missing file, a file where a folder was meant (or the reverse), a file over the caller's limit,
 * a binary file where text was meant, or any other I/O failure.
 */
export const FS_ERROR_CODES = [
  'outside-root',
  'not-found',
  'not-a-file',
  'not-a-folder',
  'too-large',
  'binary',
  'io',
] as const satisfies readonly ErrorCode[];

export type FsErrorCode = (typeof FS_ERROR_CODES)[number];

/**
 * Every code an execution context answers with: the file codes; `unreachable` when the place it
 * runs on cannot be reached now (an offline machine, or a link cut mid-call, when whether the call
 * took effect is not known), never for a command that ran and failed; `invalid-params` for a request it refuses as such (a malformed regular
 * expression, an invalid environment name); `timeout` for work stopped at its time limit; `busy`
 * when a bound is full; `channel-closed` for input to a process that no longer reads it.
 */
export const EXEC_ERROR_CODES = [
  ...FS_ERROR_CODES,
  'unreachable',
  'invalid-params',
  'timeout',
  'busy',
  'channel-closed',
] as const satisfies readonly ErrorCode[];

export type ExecErrorCode = (typeof EXEC_ERROR_CODES)[number];

/** An execution context's error. `C` narrows the codes a given operation can answer with. */
export interface ExecError<C extends ExecErrorCode = ExecErrorCode> {
  code: C;
  message: string;
}

export function execFail<C extends ExecErrorCode>(code: C, message: string): { ok: false; error: ExecError<C> } {
  return { ok: false, error: { code, message } };
}

/** An error whose code is narrowed to the few an operation can answer with. */
export interface CodedError<C extends ErrorCode> {
  code: C;
  message: string;
}

/** A failure with a narrowed code, for `Result<T, CodedError<…>>`. */
export function failWith<C extends ErrorCode>(code: C, message: string): { ok: false; error: CodedError<C> } {
  return { ok: false, error: { code, message } };
}

/** Thrown only for a programming error (a state machine used out of order), never for input. */
export class BugError extends Error {
  override name = 'BugError';
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && (ERROR_CODES as readonly string[]).includes(value);
}
