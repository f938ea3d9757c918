import { describe, expect, it } from 'vitest';
import { ManualClock } from '@tether/shared-protocol/testing';
import { collect, collectFailure, makeRequest } from '../../test/fakes/model-stream.js';
import { retryDelayMs, withRetry, type RetryNotice } from './retry.js';
import { ProviderError, type ModelEvent, type ModelProvider } from './types.js';

type Attempt = ModelEvent[] | { error: unknown; after?: ModelEvent[] };

/** A provider that plays one scripted attempt per call. */
function scripted(...attempts: Attempt[]): ModelProvider & { calls: number } {
  const provider = {
    spec: 'test:scripted',
    calls: 0,
    async *stream(): AsyncGenerator<ModelEvent> {
      const attempt = attempts[provider.calls++];
      if (attempt === undefined) throw new Error('no scripted attempt left');
      await Promise.resolve();
      if (Array.isArray(attempt)) {
        yield* attempt;
        return;
      }
      yield* attempt.after ?? [];
      throw attempt.error;
    },
  };
  return provider;
}

const OK: ModelEvent[] = [
  { type: 'text', text: 'ok' },
  { type: 'end', stopReason: 'end' },
];
const serverError = (): ProviderError => new ProviderError('boom', 'server', 500);

/** Lets pending promise callbacks run; the manual clock does the rest. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('withRetry', () => {
  it('waits on the clock with exponential backoff before each new attempt', async () => {
    const clock = new ManualClock();
    const notices: RetryNotice[] = [];
    const inner = scripted({ error: serverError() }, { error: serverError() }, { error: serverError() }, OK);
    const done = collect(
      withRetry(inner, { clock, random: () => 0, onRetry: (n) => notices.push(n) }).stream(makeRequest()),
    );

    await settle();
    expect(inner.calls).toBe(1);
    // Equal jitter with random 0: half of 1 s, then of 2 s, then of 4 s.
    clock.advance(499);
    await settle();
    expect(inner.calls).toBe(1);
    clock.advance(1);
    await settle();
    expect(inner.calls).toBe(2);
    clock.advance(1_000);
    await settle();
    expect(inner.calls).toBe(3);
    clock.advance(2_000);
    expect(await done).toEqual(OK);
    expect(notices.map((n) => [n.attempt, n.delayMs])).toEqual([
      [1, 500],
      [2, 1_000],
      [3, 2_000],
    ]);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const clock = new ManualClock();
    const last = new ProviderError('still down', 'network');
    const inner = scripted({ error: serverError() }, { error: last });
    const provider = withRetry(inner, {
      clock,
      maxAttempts: 2,
      onRetry: (n) => queueMicrotask(() => clock.advance(n.delayMs)),
    });
    expect((await collectFailure(provider.stream(makeRequest()))).error).toBe(last);
    expect(inner.calls).toBe(2);
  });

  it("uses the API's Retry-After, capped at maxDelayMs", async () => {
    const clock = new ManualClock();
    const notices: RetryNotice[] = [];
    const inner = scripted(
      { error: new ProviderError('slow', 'rate-limited', 429, 5_000) },
      { error: new ProviderError('slower', 'rate-limited', 429, 600_000) },
      OK,
    );
    const provider = withRetry(inner, {
      clock,
      onRetry: (n) => {
        notices.push(n);
        queueMicrotask(() => clock.advance(n.delayMs));
      },
    });
    expect(await collect(provider.stream(makeRequest()))).toEqual(OK);
    expect(notices.map((n) => n.delayMs)).toEqual([5_000, 30_000]);
  });

  it('passes non-retryable errors and bugs through at once', async () => {
    const client = new ProviderError('bad request', 'client', 400);
    const bug = new TypeError('oops');
    const clientInner = scripted({ error: client }, OK);
    const bugInner = scripted({ error: bug }, OK);
    expect((await collectFailure(withRetry(clientInner).stream(makeRequest()))).error).toBe(client);
    expect((await collectFailure(withRetry(bugInner).stream(makeRequest()))).error).toBe(bug);
    expect([clientInner.calls, bugInner.calls]).toEqual([1, 1]);
  });

  it('never retries after an event was yielded', async () => {
    const cut = new ProviderError('connection lost', 'network');
    const inner = scripted({ error: cut, after: [{ type: 'text', text: 'half' }] }, OK);
    const { events, error } = await collectFailure(
      withRetry(inner, { clock: new ManualClock() }).stream(makeRequest()),
    );
    expect(events).toEqual([{ type: 'text', text: 'half' }]);
    expect(error).toBe(cut);
    expect(inner.calls).toBe(1);
  });

  it('stops waiting when the request is aborted', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const inner = scripted({ error: serverError() }, OK);
    const done = collectFailure(withRetry(inner, { clock }).stream(makeRequest({ signal: controller.signal })));
    await settle();
    expect(clock.pendingTimers).toBe(1);
    controller.abort();
    expect((await done).error).toMatchObject({ kind: 'aborted' });
    expect(clock.pendingTimers).toBe(0);
    expect(inner.calls).toBe(1);
  });

  it('keeps the inner spec', () => {
    expect(withRetry(scripted()).spec).toBe('test:scripted');
  });
});

describe('retryDelayMs', () => {
  const options = { baseDelayMs: 1_000, maxDelayMs: 30_000 };
  it('doubles per attempt, jitters within the upper half, and stops at the cap', () => {
    expect(retryDelayMs(1, serverError(), { ...options, random: () => 0.5 })).toBe(750);
    expect(retryDelayMs(3, serverError(), { ...options, random: () => 0.999 })).toBe(3_998);
    expect(retryDelayMs(20, serverError(), { ...options, random: () => 0 })).toBe(15_000);
    expect(retryDelayMs(20, serverError(), { ...options, random: () => 0.9999 })).toBeLessThanOrEqual(30_000);
  });
});
