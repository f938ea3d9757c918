import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Clock } from '@tether/shared-protocol';
import { ManualClock } from '@tether/shared-protocol/testing';
import { withRetry, type RetryNotice } from '../../src/models/retry.js';
import { ProviderError, type ModelProvider, type ProviderErrorKind } from '../../src/models/types.js';
import type { FakeModelServer } from './fake-model-server.js';
import { collect, collectFailure, makeRequest, textOf } from './model-stream.js';

/** One HTTP provider and its fake, for the behaviour every provider must share. */
export interface ProviderContractTarget {
  name: string;
  newServer(): FakeModelServer;
  newProvider(baseUrl: string, options?: { idleTimeoutMs?: number; clock?: Clock }): ModelProvider;
  /** The API's own words for these stop reasons and in-stream error types. */
  maxTokensStopReason: string;
  otherStopReason: string;
  overloadedErrorType: string;
  rateLimitErrorType: string;
}

function providerError(error: unknown, kind: ProviderErrorKind): ProviderError {
  expect(error).toBeInstanceOf(ProviderError);
  expect(error).toMatchObject({ kind });
  return error as ProviderError;
}

/**
 * The ModelProvider contract, run with the real SDK against a loopback fake: events in order,
 * tool calls whole, usage, every failure a ProviderError of the right kind, nothing hangs.
 */
export function describeProviderContract(target: ProviderContractTarget): void {
  describe(`${target.name}: the ModelProvider contract`, () => {
    let server: FakeModelServer;
    let baseUrl: string;
    beforeEach(async () => {
      server = target.newServer();
      baseUrl = await server.start();
    });
    afterEach(async () => {
      await server.close();
    });

    it('streams text chunks in order, then usage, then the end', async () => {
      server.enqueue({ text: ['Hel', 'lo', ' world'], usage: { input: 12, output: 3 } });
      expect(await collect(target.newProvider(baseUrl).stream(makeRequest()))).toEqual([
        { type: 'text', text: 'Hel' },
        { type: 'text', text: 'lo' },
        { type: 'text', text: ' world' },
        { type: 'usage', inputTokens: 12, outputTokens: 3 },
        { type: 'end', stopReason: 'end' },
      ]);
    });

    it('joins the argument pieces of a tool call into one call', async () => {
      server.enqueue({
        toolCalls: [{ id: 'call-1', name: 'shell', argumentChunks: ['{"comm', 'and": "ls', ' -la"}'] }],
      });
      const events = await collect(target.newProvider(baseUrl).stream(makeRequest()));
      expect(events.filter((event) => event.type === 'tool-call')).toEqual([
        { type: 'tool-call', call: { id: 'call-1', name: 'shell', arguments: '{"command": "ls -la"}' } },
      ]);
      expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'tool-use' });
    });

    it('emits two tool calls of one turn in order, after the text', async () => {
      server.enqueue({
        text: ['Reading both.'],
        toolCalls: [
          { id: 'a', name: 'read', argumentChunks: ['{"path":', '"a.txt"}'] },
          { id: 'b', name: 'read', argumentChunks: ['{"path":"b.txt"}'] },
        ],
      });
      const events = await collect(target.newProvider(baseUrl).stream(makeRequest()));
      expect(events.map((event) => event.type)).toEqual(['text', 'tool-call', 'tool-call', 'usage', 'end']);
      expect(events.slice(1, 3)).toEqual([
        { type: 'tool-call', call: { id: 'a', name: 'read', arguments: '{"path":"a.txt"}' } },
        { type: 'tool-call', call: { id: 'b', name: 'read', arguments: '{"path":"b.txt"}' } },
      ]);
    });

    it('passes malformed arguments through raw, and no arguments as {}', async () => {
      server.enqueue({
        toolCalls: [
          { id: 'bad', name: 'shell', argumentChunks: ['{"command": "ls', ' -la'] },
          { id: 'none', name: 'status', argumentChunks: [] },
        ],
      });
      const events = await collect(target.newProvider(baseUrl).stream(makeRequest()));
      expect(events.filter((event) => event.type === 'tool-call')).toEqual([
        { type: 'tool-call', call: { id: 'bad', name: 'shell', arguments: '{"command": "ls -la' } },
        { type: 'tool-call', call: { id: 'none', name: 'status', arguments: '{}' } },
      ]);
    });

    it('maps the max-tokens stop reason and an unknown one', async () => {
      server.enqueue(
        { text: ['cut'], stopReason: target.maxTokensStopReason },
        { text: ['x'], stopReason: target.otherStopReason },
      );
      const provider = target.newProvider(baseUrl);
      expect((await collect(provider.stream(makeRequest()))).at(-1)).toEqual({ type: 'end', stopReason: 'max-tokens' });
      expect((await collect(provider.stream(makeRequest()))).at(-1)).toEqual({ type: 'end', stopReason: 'other' });
    });

    it('turns a 400 into a client error carrying the API message, which withRetry does not retry', async () => {
      server.enqueue({ error: { status: 400, message: 'max_tokens: must be at most 8192' } });
      const onRetry = vi.fn();
      const { error } = await collectFailure(withRetry(target.newProvider(baseUrl), { onRetry }).stream(makeRequest()));
      const failure = providerError(error, 'client');
      expect(failure.status).toBe(400);
      expect(failure.message).toContain('max_tokens: must be at most 8192');
      expect(failure.retryable).toBe(false);
      expect(onRetry).not.toHaveBeenCalled();
      expect(server.requests).toHaveLength(1);
    });

    it('turns a 429 into rate-limited with Retry-After in seconds', async () => {
      server.enqueue({ error: { status: 429, message: 'slow down', retryAfter: 7 } });
      const { error } = await collectFailure(target.newProvider(baseUrl).stream(makeRequest()));
      expect(providerError(error, 'rate-limited')).toMatchObject({ status: 429, retryAfterMs: 7000 });
    });

    it('reads a Retry-After given as an HTTP-date', async () => {
      server.enqueue({
        error: { status: 429, message: 'slow down', retryAfter: new Date(Date.now() + 20_000).toUTCString() },
      });
      const { error } = await collectFailure(target.newProvider(baseUrl).stream(makeRequest()));
      const retryAfterMs = providerError(error, 'rate-limited').retryAfterMs ?? -1;
      // The date has whole seconds: up to a second early, plus the test's own time.
      expect(retryAfterMs).toBeGreaterThan(17_000);
      expect(retryAfterMs).toBeLessThanOrEqual(20_000);
    });

    it('turns 500 and 529 into server errors', async () => {
      server.enqueue({ error: { status: 500, message: 'boom' } }, { error: { status: 529, message: 'Overloaded' } });
      const provider = target.newProvider(baseUrl);
      expect(providerError((await collectFailure(provider.stream(makeRequest()))).error, 'server').status).toBe(500);
      const overloaded = providerError((await collectFailure(provider.stream(makeRequest()))).error, 'server');
      expect(overloaded).toMatchObject({ status: 529, retryable: true });
      expect(overloaded.message).toContain('Overloaded');
    });

    it('retries a 500 through withRetry, waiting on the injected clock', async () => {
      server.enqueue({ error: { status: 500, message: 'try later' } }, { text: ['recovered'] });
      const clock = new ManualClock();
      const notices: RetryNotice[] = [];
      const provider = withRetry(target.newProvider(baseUrl), {
        clock,
        random: () => 0.5,
        onRetry: (notice) => {
          notices.push(notice);
          // The wait is scheduled right after onRetry returns.
          queueMicrotask(() => clock.advance(notice.delayMs));
        },
      });
      expect(textOf(await collect(provider.stream(makeRequest())))).toBe('recovered');
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatchObject({
        attempt: 1,
        maxAttempts: 4,
        delayMs: 750,
        error: { kind: 'server', status: 500 },
      });
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry once an event was yielded', async () => {
      server.enqueue({ cut: { afterEvents: 4, turn: { text: ['one', 'two', 'three'] } } }, { text: ['again'] });
      const onRetry = vi.fn();
      const { events, error } = await collectFailure(
        withRetry(target.newProvider(baseUrl), { onRetry }).stream(makeRequest()),
      );
      expect(events.length).toBeGreaterThan(0);
      providerError(error, 'network');
      expect(onRetry).not.toHaveBeenCalled();
      expect(server.requests).toHaveLength(1);
    });

    it('fails a cut connection with a network error instead of hanging, leaving no timer behind', async () => {
      server.enqueue({ cut: { afterEvents: 3 } });
      const clock = new ManualClock();
      const { error } = await collectFailure(target.newProvider(baseUrl, { clock }).stream(makeRequest()));
      expect(providerError(error, 'network').message).toMatch(/lost/);
      // A leaked idle timer would keep the daemon's event loop busy for minutes.
      expect(clock.pendingTimers).toBe(0);
    });

    it("fails a stream the fake server's close() cuts off", async () => {
      server.enqueue({ hang: true });
      const pending = collectFailure(target.newProvider(baseUrl).stream(makeRequest()));
      await server.waitForRequests(1);
      await server.close();
      providerError((await pending).error, 'network');
    });

    it('fails a stream that ends cleanly before the turn finished', async () => {
      server.enqueue({ truncate: { afterEvents: 3 } });
      const { events, error } = await collectFailure(target.newProvider(baseUrl).stream(makeRequest()));
      expect(providerError(error, 'protocol').message).toContain('stream ended before the turn finished');
      expect(events.some((event) => event.type === 'end')).toBe(false);
    });

    it('classifies an error event inside the stream by its type', async () => {
      server.enqueue(
        { streamError: { type: target.overloadedErrorType, message: 'Overloaded', afterEvents: 1 } },
        { streamError: { type: target.rateLimitErrorType, message: 'Too many', afterEvents: 1 } },
      );
      const provider = target.newProvider(baseUrl);
      expect(providerError((await collectFailure(provider.stream(makeRequest()))).error, 'server').message).toContain(
        'Overloaded',
      );
      expect(
        providerError((await collectFailure(provider.stream(makeRequest()))).error, 'rate-limited').message,
      ).toContain('Too many');
    });

    it('fails an event that is not JSON with a protocol error', async () => {
      server.enqueue({ malformed: { afterEvents: 1 } });
      providerError((await collectFailure(target.newProvider(baseUrl).stream(makeRequest()))).error, 'protocol');
    });

    it('ends a hanging stream at once when aborted, and closes the connection', async () => {
      server.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = collectFailure(target.newProvider(baseUrl).stream(makeRequest({ signal: controller.signal })));
      await server.waitForRequests(1);
      const abortedAt = Date.now();
      controller.abort();
      providerError((await pending).error, 'aborted');
      expect(Date.now() - abortedAt).toBeLessThan(1_000);
      await vi.waitFor(() => expect(server.abandonedResponses).toBe(1));
    });

    it('stops mid-stream when aborted between events', async () => {
      server.enqueue({ text: ['a ', 'b ', 'c ', 'd ', 'e '], chunkDelayMs: 200 });
      const controller = new AbortController();
      const stream = target.newProvider(baseUrl).stream(makeRequest({ signal: controller.signal }));
      const iterator = stream[Symbol.asyncIterator]();
      expect(await iterator.next()).toEqual({ done: false, value: { type: 'text', text: 'a ' } });
      controller.abort();
      const abortedAt = Date.now();
      await expect(iterator.next()).rejects.toMatchObject({ kind: 'aborted' });
      expect(Date.now() - abortedAt).toBeLessThan(150);
    });

    it('does not call the API when the signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const { error } = await collectFailure(
        target.newProvider(baseUrl).stream(makeRequest({ signal: controller.signal })),
      );
      providerError(error, 'aborted');
      expect(server.requests).toHaveLength(0);
    });

    it('gives up on an API that goes silent for the idle timeout', async () => {
      server.enqueue({ hang: true });
      const { error } = await collectFailure(target.newProvider(baseUrl, { idleTimeoutMs: 100 }).stream(makeRequest()));
      expect(providerError(error, 'network').message).toContain('sent nothing');
    });

    it('closes the connection when the consumer stops early', async () => {
      server.enqueue({ text: ['a', 'b', 'c', 'd'], chunkDelayMs: 100 });
      for await (const event of target.newProvider(baseUrl).stream(makeRequest())) {
        expect(event).toEqual({ type: 'text', text: 'a' });
        break;
      }
      await vi.waitFor(() => expect(server.abandonedResponses).toBe(1));
    });

    it('reports a refused connection as a network error', async () => {
      await server.close();
      providerError((await collectFailure(target.newProvider(baseUrl).stream(makeRequest()))).error, 'network');
    });

    it('fails loudly when the fake has nothing scripted', async () => {
      const { error } = await collectFailure(target.newProvider(baseUrl).stream(makeRequest()));
      expect(providerError(error, 'server').message).toContain('no scripted response');
    });
  });
}
