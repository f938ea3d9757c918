import type { ModelEvent, ModelProvider, ModelRequest } from '../../src/models/types.js';
import { ProviderError } from '../../src/models/types.js';

export interface WindowedModelOptions {
  /** The context window in tokens: a request whose input and output room pass it is refused. */
  window: number;
  /** Tool calls it makes before it ends its turn. */
  steps: number;
  /** The tool call for step `n` (from 0): its name and JSON arguments. */
  call: (step: number) => { name: string; arguments: string };
  /** Characters per token of its own count; under the loop's 4 its counts run higher than the estimate. */
  charsPerToken?: number;
  /** Reports this share of its own count as usage (under 1: the provider's usage undercounts). */
  reportShare?: number;
}

/**
 * A stand-in model with a small context window, counted its own way, that refuses what does not
 * fit as the APIs do (a 400 "prompt is too long"). It calls a tool `steps` times, then ends; a
 * request without tools is a compaction's summary request, answered with a short summary.
 */
export class WindowedModel implements ModelProvider {
  readonly spec = 'stand-in';
  /** Every request's tokens by its own count, in order, refused ones included. */
  readonly sizes: number[] = [];
  refused = 0;
  /** The messages of the last agent request (not a summary's) that was answered, as sent. */
  lastMessages: ModelRequest['messages'] = [];
  summaries = 0;
  private step = 0;

  constructor(private readonly options: WindowedModelOptions) {}

  /** Tokens of a request as this model counts them. */
  count(request: ModelRequest): number {
    const chars =
      request.system.length + JSON.stringify(request.tools).length + JSON.stringify(request.messages).length;
    return Math.ceil(chars / (this.options.charsPerToken ?? 3.5)) + request.messages.length * 4;
  }

  get largest(): number {
    return Math.max(0, ...this.sizes);
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    await Promise.resolve();
    const tokens = this.count(request);
    this.sizes.push(tokens);
    if (tokens + request.maxTokens > this.options.window) {
      this.refused++;
      throw new ProviderError(
        `prompt is too long: ${tokens} tokens + ${request.maxTokens} > ${this.options.window} maximum`,
        'client',
        400,
      );
    }
    const usage = {
      type: 'usage' as const,
      inputTokens: Math.ceil(tokens * (this.options.reportShare ?? 1)),
      outputTokens: 50,
    };
    if (request.tools.length > 0) this.lastMessages = structuredClone(request.messages);
    if (request.tools.length === 0) {
      this.summaries++;
      yield {
        type: 'text',
        text: `Summary ${this.summaries}: the agent read files one after another; nothing is open. `.repeat(4),
      };
      yield usage;
      yield { type: 'end', stopReason: 'end' };
      return;
    }
    if (this.step >= this.options.steps) {
      yield { type: 'text', text: 'All done.' };
      yield usage;
      yield { type: 'end', stopReason: 'end' };
      return;
    }
    const call = this.options.call(this.step);
    const id = `call_${this.step++}`;
    yield { type: 'text', text: `Step ${this.step}.` };
    yield { type: 'tool-call', call: { id, ...call } };
    yield usage;
    yield { type: 'end', stopReason: 'tool-use' };
  }
}
