import Anthropic, { APIConnectionError, APIError, APIUserAbortError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent, StopReason as AnthropicStopReason } from '@anthropic-ai/sdk/resources/messages';
import { systemClock, type Clock } from '@tether/shared-protocol';
import { toAnthropicParams } from './anthropic-request.js';
import {
  abortedFailure,
  connectionFailure,
  endedEarlyFailure,
  httpFailure,
  parseRetryAfterMs,
  streamEventFailure,
  transportFailure,
} from './provider-failure.js';
import { DEFAULT_IDLE_TIMEOUT_MS, TurnGuard, guardedEvents } from './turn-guard.js';
import { ProviderError, type ModelEvent, type ModelProvider, type ModelRequest, type StopReason } from './types.js';

const API = 'Anthropic API';

export interface AnthropicProviderOptions {
  apiKey: string;
  /** Without `/v1`, e.g. `https://api.anthropic.com` (the default) or a loopback fake. */
  baseUrl?: string;
  /** Used when a request names no model, and in `spec`. */
  model: string;
  /** See DEFAULT_IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number;
  /** Drives the idle timer. */
  clock?: Clock;
}

/** The Anthropic Messages API, streamed. Retries are left to withRetry (the SDK's are off). */
export class AnthropicProvider implements ModelProvider {
  readonly spec: string;
  private readonly client: Anthropic;
  private readonly model: string;
  private readonly idleTimeoutMs: number;
  private readonly clock: Clock;

  constructor(options: AnthropicProviderOptions) {
    this.spec = `anthropic:${options.model}`;
    this.model = options.model;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.client = new Anthropic({
      apiKey: options.apiKey,
      // Explicit, so the SDK never reads ANTHROPIC_BASE_URL from the process behind our back.
      baseURL: options.baseUrl ?? 'https://api.anthropic.com',
      maxRetries: 0,
      // Failures reach the caller as ProviderErrors; the SDK must not print to our terminal.
      logLevel: 'off',
    });
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const guard = new TurnGuard(API, request.signal, this.idleTimeoutMs, this.clock);
    let events: AsyncIterator<RawMessageStreamEvent> | undefined;
    try {
      guard.arm();
      try {
        const params = toAnthropicParams(request, request.model === '' ? this.model : request.model);
        const stream = await this.client.messages.create(params, { signal: guard.signal });
        events = stream[Symbol.asyncIterator]();
      } catch (error) {
        throw guard.stopError() ?? this.failure(error);
      }
      const reader = new AnthropicTurnReader();
      for await (const event of guardedEvents(events, guard, (error) => this.failure(error))) {
        yield* reader.read(event);
        if (reader.finished) break;
      }
      // The SDK ends the iteration quietly when its signal fires, so silence is checked here.
      const stopped = guard.stopError();
      if (stopped !== undefined) throw stopped;
      if (!reader.finished) throw endedEarlyFailure(API);
    } finally {
      guard.dispose();
      await events?.return?.().catch(() => undefined);
    }
  }

  private failure(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    if (error instanceof APIUserAbortError) return abortedFailure(API);
    if (error instanceof APIConnectionError) return connectionFailure(API, error);
    if (isApiError(error)) {
      const message = error.apiMessage ?? error.message;
      // No status: an `error` event inside a 200 stream.
      if (error.status === undefined) return streamEventFailure(API, [error.type], message);
      return httpFailure(API, error.status, message, parseRetryAfterMs(error.headers, this.clock.now()));
    }
    return transportFailure(API, error);
  }
}

/**
 * Turns raw stream events into ModelEvents. Text deltas pass through; a tool_use block's
 * input_json_delta pieces are joined and emitted as one tool call when the block stops; usage
 * and the end come with message_stop, so `end` is only ever emitted for a complete message.
 */
export class AnthropicTurnReader {
  finished = false;
  private inputTokens = 0;
  private outputTokens = 0;
  private stopReason: AnthropicStopReason | null = null;
  /** Open tool_use blocks by content-block index. */
  private readonly toolBlocks = new Map<number, { id: string; name: string; json: string }>();

  *read(event: RawMessageStreamEvent): Generator<ModelEvent> {
    switch (event.type) {
      case 'message_start': {
        const usage = event.message.usage;
        // Cached prompt tokens are input too: the API counts them apart from input_tokens.
        this.inputTokens =
          usage.input_tokens + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
        this.outputTokens = usage.output_tokens;
        break;
      }
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use') this.toolBlocks.set(event.index, { id: block.id, name: block.name, json: '' });
        else if (block.type === 'text' && block.text !== '') yield { type: 'text', text: block.text };
        break;
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (delta.type === 'text_delta') {
          if (delta.text !== '') yield { type: 'text', text: delta.text };
        } else if (delta.type === 'input_json_delta') {
          const block = this.toolBlocks.get(event.index);
          if (block !== undefined) block.json += delta.partial_json;
        }
        // Thinking, signature and citation deltas are not part of the transcript.
        break;
      }
      case 'content_block_stop': {
        const block = this.toolBlocks.get(event.index);
        if (block === undefined) break;
        this.toolBlocks.delete(event.index);
        yield {
          type: 'tool-call',
          call: { id: block.id, name: block.name, arguments: block.json === '' ? '{}' : block.json },
        };
        break;
      }
      case 'message_delta':
        // output_tokens here is the running total for the message, not an increment.
        this.outputTokens = event.usage.output_tokens;
        this.stopReason = event.delta.stop_reason;
        break;
      case 'message_stop':
        this.finished = true;
        yield { type: 'usage', inputTokens: this.inputTokens, outputTokens: this.outputTokens };
        yield { type: 'end', stopReason: mapStopReason(this.stopReason) };
        break;
    }
  }
}

function mapStopReason(reason: AnthropicStopReason | null): StopReason {
  switch (reason) {
    case 'end_turn':
      return 'end';
    case 'tool_use':
      return 'tool-use';
    case 'max_tokens':
      return 'max-tokens';
    default:
      return 'other';
  }
}

/** `instanceof` alone narrows to `APIError<any, any, any>`; this keeps the declared field types. */
function isApiError(error: unknown): error is APIError {
  return error instanceof APIError;
}
