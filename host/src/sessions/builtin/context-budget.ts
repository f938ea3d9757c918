import type { ChatMessage, ToolSpec } from '../../models/types.js';

/** Characters per token assumed before the provider has counted any (English and code run 3.5–4.5). */
const CHARS_PER_TOKEN = 4;
/** Tokens an image costs: about what both APIs charge for a photo downscaled to 1,600 px
 * (Anthropic counts width × height / 750, capped near 1,600 for its own downscale). */
const IMAGE_TOKENS = 1600;
/** Tokens a message costs beyond its text (role, separators), as both APIs count roughly. */
const MESSAGE_OVERHEAD = 4;
/** Bounds on how far the provider's counts may scale the estimate: a misreport cannot make it absurd. */
const MIN_RATIO = 0.5;
const MAX_RATIO = 4;
/** Output tokens a model may produce per call, unless its window is small (then a quarter of it). */
export const MAX_OUTPUT_TOKENS = 8192;
/** Past this share of the input budget a request is compacted first (room for the turn's own growth). */
export const COMPACT_AT = 0.8;
/** A compaction aims under this share of the input budget, so it is not needed again at once. */
export const COMPACT_TO = 0.5;

/** What one request is made of, for counting. */
export interface RequestShape {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly ChatMessage[];
}

/** A rough count of a request's tokens: characters over CHARS_PER_TOKEN, plus each message's overhead. */
export function estimateTokens(request: RequestShape): number {
  let chars = request.system.length + JSON.stringify(request.tools).length;
  let messages = 0;
  for (const message of request.messages) {
    messages++;
    if (message.role === 'user') {
      chars += message.text.length;
      for (const a of message.attachments ?? [])
        chars += a.kind === 'text' ? a.text.length : IMAGE_TOKENS * CHARS_PER_TOKEN;
    } else if (message.role === 'assistant') {
      chars += message.text.length;
      for (const call of message.toolCalls) chars += call.name.length + call.arguments.length + call.id.length;
    } else {
      for (const result of message.results) {
        messages++;
        chars += result.output.length + result.toolCallId.length;
      }
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + messages * MESSAGE_OVERHEAD;
}

/**
 * The context a session's model has, and how full a request would make it. Counts come from the
 * provider's usage where it gave one: each call's reported input tokens against the estimate of
 * the same request set the scale applied to the next estimate, so what the loop adds between two
 * calls (tool results, a follow-up) is estimated in the provider's own terms.
 */
export class ContextBudget {
  private ratio = 1;

  constructor(readonly window: number) {}

  /** Output tokens asked for per call: MAX_OUTPUT_TOKENS, or a quarter of a small window. */
  get maxOutput(): number {
    return Math.min(MAX_OUTPUT_TOKENS, Math.floor(this.window / 4));
  }

  /** Input tokens a request may take: the window less the room kept for the reply. */
  get inputBudget(): number {
    return this.window - this.maxOutput;
  }

  /** The request's tokens as the provider would count them (scaled estimate). */
  measure(request: RequestShape): number {
    return Math.ceil(estimateTokens(request) * this.ratio);
  }

  /** True when the request should be compacted before it is sent. */
  needsCompaction(tokens: number): boolean {
    return tokens > this.inputBudget * COMPACT_AT;
  }

  get target(): number {
    return Math.floor(this.inputBudget * COMPACT_TO);
  }

  /**
   * The provider refused `request` as too long: it holds more than the input budget by the
   * provider's count, so the scale is raised at least to say so (and by a quarter more, for what
   * the count may still miss).
   */
  refused(request: RequestShape): void {
    const estimate = estimateTokens(request);
    if (estimate <= 0) return;
    this.ratio = Math.min(MAX_RATIO, Math.max(this.ratio * 1.25, (this.inputBudget + 1) / estimate));
  }

  /** The provider counted `inputTokens` for `request`: the scale for later estimates. */
  calibrate(request: RequestShape, inputTokens: number): void {
    if (inputTokens <= 0) return;
    const estimate = estimateTokens(request);
    if (estimate <= 0) return;
    this.ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, inputTokens / estimate));
  }
}
