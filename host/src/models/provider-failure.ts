import { ProviderError } from './types.js';

/**
 * Turning what an HTTP model API said into a ProviderError, shared by the Anthropic and OpenAI
 * providers (whose SDKs have look-alike but distinct error classes).
 */

/**
 * Milliseconds to wait as the API asked: `retry-after-ms` (both SDKs honour it), else
 * `Retry-After` as seconds or as an HTTP-date. Undefined when absent or unreadable; a date in
 * the past gives 0.
 */
export function parseRetryAfterMs(headers: Headers | undefined, nowMs: number): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms !== null && ms !== undefined && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const header = headers?.get('retry-after');
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** An HTTP error status, with the API's own message, as the loop needs it. */
export function httpFailure(api: string, status: number, message: string, retryAfterMs?: number): ProviderError {
  if (status === 429)
    return new ProviderError(`${api} rate limit (429): ${message}`, 'rate-limited', status, retryAfterMs);
  // 529 is Anthropic's "overloaded"; any 5xx is the server's trouble and may pass.
  if (status >= 500)
    return new ProviderError(`${api} server error (${status}): ${message}`, 'server', status, retryAfterMs);
  // 408 means the server gave up waiting for our request: worth another try, like a dropped connection.
  if (status === 408)
    return new ProviderError(`${api} request timeout (408): ${message}`, 'network', status, retryAfterMs);
  return new ProviderError(`${api} rejected the request (${status}): ${message}`, 'client', status);
}

/**
 * An error reported inside the event stream (the HTTP status was already 200), classified by
 * its type words: Anthropic sends `error.type`, OpenAI `error.type` and `error.code`.
 */
export function streamEventFailure(
  api: string,
  types: readonly (string | null | undefined)[],
  message: string,
): ProviderError {
  const known = types.filter((type): type is string => typeof type === 'string' && type !== '');
  const text = `${api} stream error${known.length > 0 ? ` (${known.join(', ')})` : ''}: ${message}`;
  if (known.some((type) => /rate_limit|^requests$/.test(type))) return new ProviderError(text, 'rate-limited');
  if (known.some((type) => CLIENT_ERROR_TYPES.has(type))) return new ProviderError(text, 'client');
  return new ProviderError(text, 'server');
}

const CLIENT_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
]);

/**
 * A failure that is not an API error: a malformed event is the API's fault (protocol); anything
 * else while reading is the connection (undici's `TypeError: terminated` on a cut socket).
 */
export function transportFailure(api: string, error: unknown): ProviderError {
  if (error instanceof SyntaxError) {
    return new ProviderError(`${api} sent an event that is not valid JSON: ${error.message}`, 'protocol');
  }
  return new ProviderError(`connection to ${api} lost: ${describe(error)}`, 'network');
}

export function connectionFailure(api: string, error: unknown): ProviderError {
  return new ProviderError(`could not reach ${api}: ${describe(error)}`, 'network');
}

export function abortedFailure(api: string): ProviderError {
  return new ProviderError(`${api} request aborted`, 'aborted');
}

export function endedEarlyFailure(api: string): ProviderError {
  return new ProviderError(`${api} stream ended before the turn finished`, 'protocol');
}

/** The `message` in an API error body, whether given the whole body or its `error` member. */
export function apiErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  if ('message' in body && typeof body.message === 'string') return body.message;
  if ('error' in body) return apiErrorMessage(body.error);
  return undefined;
}

/** An error's message with its causes, e.g. `terminated (other side closed)`. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  return cause instanceof Error && cause.message !== error.message
    ? `${error.message} (${describe(cause)})`
    : error.message;
}
