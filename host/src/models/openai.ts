import { randomUUID } from 'node:crypto';
import OpenAI, { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { systemClock, type Clock } from '@tether/shared-protocol';
import { formatModelSpec } from './model-spec.js';
import { toOpenAIParams, type MaxTokensField } from './openai-request.js';
import {
  abortedFailure,
  apiErrorMessage,
  connectionFailure,
  endedEarlyFailure,
  httpFailure,
  parseRetryAfterMs,
  streamEventFailure,
  transportFailure,
} from './provider-failure.js';
import { DEFAULT_IDLE_TIMEOUT_MS, TurnGuard, guardedEvents } from './turn-guard.js';
import { ProviderError, type ModelEvent, type ModelProvider, type ModelRequest, type StopReason } from './types.js';

export interface OpenAIProviderOptions {
  /** `openai` for OpenAI itself; `openai-compatible` for any server speaking Chat Completions. */
  flavor: 'openai' | 'openai-compatible';
  /** Compatible servers often need none; the SDK insists on one, so a placeholder is sent. */
  apiKey?: string;
  /** With `/v1`, e.g. `https://api.openai.com/v1` (the default) or `http://localhost:11434/v1`. */
  baseUrl?: string;
  /** Used when a request names no model, and in `spec`. */
  model: string;
  /** Default: `max_completion_tokens` for OpenAI, `max_tokens` for compatible servers. */
  maxTokensField?: MaxTokensField;
  /** See DEFAULT_IDLE_TIMEOUT_MS. */
  idleTimeoutMs?: number;
  clock?: Clock;
}

/** Chat Completions, streamed: OpenAI and every OpenAI-compatible server. Retries are withRetry's. */
export class OpenAIProvider implements ModelProvider {
  readonly spec: string;
  private readonly api: string;
  private readonly client: OpenAI;
  private readonly model: string;
  private readonly maxTokensField: MaxTokensField;
  private readonly idleTimeoutMs: number;
  private readonly clock: Clock;

  constructor(options: OpenAIProviderOptions) {
    const baseUrl = options.baseUrl ?? 'https://api.openai.com/v1';
    this.spec = formatModelSpec({ provider: options.flavor, model: options.model, baseUrl });
    this.api = options.flavor === 'openai' ? 'OpenAI API' : `OpenAI-compatible server at ${baseUrl}`;
    this.model = options.model;
    this.maxTokensField =
      options.maxTokensField ?? (options.flavor === 'openai' ? 'max_completion_tokens' : 'max_tokens');
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.clock = options.clock ?? systemClock;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? 'not-needed',
      // Explicit, so the SDK never reads OPENAI_BASE_URL from the process behind our back.
      baseURL: baseUrl,
      maxRetries: 0,
      logLevel: 'off',
    });
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    const guard = new TurnGuard(this.api, request.signal, this.idleTimeoutMs, this.clock);
    let chunks: AsyncIterator<ChatCompletionChunk> | undefined;
    try {
      guard.arm();
      try {
        const params = toOpenAIParams(request, request.model === '' ? this.model : request.model, this.maxTokensField);
        const stream = await this.client.chat.completions.create(params, { signal: guard.signal });
        chunks = stream[Symbol.asyncIterator]();
      } catch (error) {
        throw guard.stopError() ?? this.failure(error);
      }
      const reader = new OpenAITurnReader();
      for await (const chunk of guardedEvents(chunks, guard, (error) => this.failure(error))) yield* reader.read(chunk);
      // The SDK ends the iteration quietly when its signal fires, and also when the body just
      // stops (it does not insist on [DONE]): only a finish_reason proves the turn complete.
      const stopped = guard.stopError();
      if (stopped !== undefined) throw stopped;
      if (!reader.finished) throw endedEarlyFailure(this.api);
      yield* reader.end();
    } finally {
      guard.dispose();
      await chunks?.return?.().catch(() => undefined);
    }
  }

  private failure(error: unknown): ProviderError {
    if (error instanceof ProviderError) return error;
    if (error instanceof APIUserAbortError) return abortedFailure(this.api);
    if (error instanceof APIConnectionError) return connectionFailure(this.api, error);
    if (isApiError(error)) {
      // The SDK keeps the body's `error` member here, for HTTP and in-stream errors alike.
      const message = apiErrorMessage(error.error) ?? error.message;
      if (error.status === undefined) return streamEventFailure(this.api, [error.type, error.code], message);
      return httpFailure(this.api, error.status, message, parseRetryAfterMs(error.headers, this.clock.now()));
    }
    return transportFailure(this.api, error);
  }
}

/**
 * Turns chunks into ModelEvents. Tool calls arrive by index: id and name in the first piece,
 * arguments spread over the following ones; they are emitted whole when the finish_reason
 * arrives. Usage comes in a last chunk with no choices, so `end` waits for the stream's end.
 */
export class OpenAITurnReader {
  private finishReason: ChatCompletionChunk.Choice['finish_reason'] = null;
  private toolCallsEmitted = 0;
  private usage: { inputTokens: number; outputTokens: number } | undefined;
  private readonly calls = new Map<number, { id: string; name: string; arguments: string }>();

  get finished(): boolean {
    return this.finishReason !== null;
  }

  *read(chunk: ChatCompletionChunk): Generator<ModelEvent> {
    if (chunk.usage !== undefined && chunk.usage !== null) {
      this.usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
    // We never ask for n > 1, so only the first choice exists.
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (choice === undefined || this.finished) return;
    const delta = choice.delta;
    if (typeof delta.content === 'string' && delta.content !== '') yield { type: 'text', text: delta.content };
    for (const piece of delta.tool_calls ?? []) {
      const call = this.calls.get(piece.index) ?? { id: '', name: '', arguments: '' };
      this.calls.set(piece.index, call);
      if (call.id === '' && piece.id !== undefined) call.id = piece.id;
      if (call.name === '' && piece.function?.name !== undefined) call.name = piece.function.name;
      call.arguments += piece.function?.arguments ?? '';
    }
    if (choice.finish_reason !== null) {
      this.finishReason = choice.finish_reason;
      for (const index of [...this.calls.keys()].sort((a, b) => a - b)) {
        const call = this.calls.get(index);
        if (call === undefined) continue;
        this.toolCallsEmitted++;
        yield {
          type: 'tool-call',
          call: {
            // Some compatible servers send no id; the loop still needs one to pair the result.
            id: call.id === '' ? `call_${randomUUID()}` : call.id,
            name: call.name,
            arguments: call.arguments === '' ? '{}' : call.arguments,
          },
        };
      }
      this.calls.clear();
    }
  }

  /** The closing events, once the stream has ended after a finish_reason. */
  *end(): Generator<ModelEvent> {
    if (this.usage !== undefined) yield { type: 'usage', ...this.usage };
    yield { type: 'end', stopReason: this.stopReason() };
  }

  private stopReason(): StopReason {
    switch (this.finishReason) {
      case 'stop':
        // Some compatible servers (older Ollama) finish a tool-calling turn with `stop`.
        return this.toolCallsEmitted > 0 ? 'tool-use' : 'end';
      case 'tool_calls':
        return 'tool-use';
      case 'length':
        return 'max-tokens';
      default:
        return 'other';
    }
  }
}

/** `instanceof` alone narrows to `APIError<any, any, any>`; this keeps the declared field types. */
function isApiError(error: unknown): error is APIError {
  return error instanceof APIError;
}
