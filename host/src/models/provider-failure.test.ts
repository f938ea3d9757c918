import { describe, expect, it } from 'vitest';
import { describe as describeError, httpFailure, parseRetryAfterMs, streamEventFailure } from './provider-failure.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');

describe('parseRetryAfterMs', () => {
  it.each<[Record<string, string>, number | undefined]>([
    [{}, undefined],
    [{ 'retry-after': '7' }, 7_000],
    [{ 'retry-after': '0.5' }, 500],
    [{ 'retry-after': 'Sun, 01 Jun 2025 12:00:30 GMT' }, 30_000],
    [{ 'retry-after': 'Sun, 01 Jun 2025 11:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{ 'retry-after': '-3' }, undefined],
    [{ 'retry-after-ms': '250', 'retry-after': '7' }, 250],
  ])('reads %j as %s ms', (headers, expected) => {
    expect(parseRetryAfterMs(new Headers(headers), NOW)).toBe(expected);
  });
});

describe('httpFailure', () => {
  it.each([
    [429, 'rate-limited', true],
    [500, 'server', true],
    [503, 'server', true],
    [529, 'server', true],
    [408, 'network', true],
    [400, 'client', false],
    [401, 'client', false],
    [404, 'client', false],
  ] as const)('classifies %i as %s', (status, kind, retryable) => {
    const error = httpFailure('Test API', status, 'the message');
    expect(error).toMatchObject({ kind, status, retryable });
    expect(error.message).toContain('the message');
  });
});

describe('streamEventFailure', () => {
  it('reads rate limits and request errors from any of the type words', () => {
    expect(streamEventFailure('A', ['overloaded_error'], 'm').kind).toBe('server');
    expect(streamEventFailure('A', ['rate_limit_error'], 'm').kind).toBe('rate-limited');
    expect(streamEventFailure('A', ['requests', null], 'm').kind).toBe('rate-limited');
    expect(streamEventFailure('A', ['invalid_request_error', 'context_length_exceeded'], 'm').kind).toBe('client');
    expect(streamEventFailure('A', [undefined], 'm').kind).toBe('server');
  });
});

describe('describe', () => {
  it('adds causes that say something new', () => {
    const error = new TypeError('terminated', { cause: new Error('other side closed') });
    expect(describeError(error)).toBe('terminated (other side closed)');
    expect(describeError('text')).toBe('text');
  });
});
