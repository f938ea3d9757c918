/**
 * The port between the agent loop and a model API. Providers (Anthropic, OpenAI, any
 * OpenAI-compatible server, the built-in demo) turn a request into a stream of these events.
 */

/** A tool the model may call, described by a JSON Schema object for its input. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A complete tool call from the model. `arguments` is the raw JSON text the model produced:
 * it may be malformed, and the loop reports that back to the model as a tool error. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ToolResultMessage {
  toolCallId: string;
  name: string;
  output: string;
  isError: boolean;
}

/**
 * A photo or a text file sent with a person's message. An image goes to the model as an image
 * block (base64, standard alphabet); a text file as text under its name.
 */
export type ChatAttachment =
  | { kind: 'image'; name: string; mediaType: 'image/jpeg' | 'image/png' | 'image/webp' | 'image/gif'; base64: string }
  | { kind: 'text'; name: string; text: string };

export type ChatMessage =
  | { role: 'user'; text: string; attachments?: ChatAttachment[] }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  /** The results of the previous assistant message's tool calls, one per call, in its order. */
  | { role: 'tool'; results: ToolResultMessage[] };

export interface ModelRequest {
  /** The provider's own model name (without the `anthropic:` prefix). */
  model: string;
  system: string;
  messages: ChatMessage[];
  tools: ToolSpec[];
  maxTokens: number;
  signal: AbortSignal;
}

export type StopReason = 'end' | 'tool-use' | 'max-tokens' | 'other';

export type ModelEvent =
  /** More assistant text, in order. */
  | { type: 'text'; text: string }
  /** A tool call, emitted once it is complete (all its argument chunks arrived). */
  | { type: 'tool-call'; call: ToolCall }
  /** Token usage; each event adds to the turn's totals. */
  | { type: 'usage'; inputTokens: number; outputTokens: number }
  /** The turn ended normally. Always the last event of a successful stream. */
  | { type: 'end'; stopReason: StopReason };

export interface ModelProvider {
  /** As written in `--model`, e.g. `anthropic:claude-sonnet-4-5`, `demo`. */
  readonly spec: string;
  /**
   * Streams one model turn. Throws a ProviderError for every failure: before the first event
   * (connection refused, 429, 5xx, 4xx) or during the stream (a cut connection, a malformed
   * chunk). An aborted signal ends the stream with a ProviderError of kind `aborted`. A stream
   * that ends without an `end` event is an error, never a silent success.
   */
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

export type ProviderErrorKind = 'rate-limited' | 'server' | 'client' | 'network' | 'aborted' | 'protocol';

export class ProviderError extends Error {
  override name = 'ProviderError';

  constructor(
    message: string,
    readonly kind: ProviderErrorKind,
    readonly status?: number,
    /** From a Retry-After header, when the API sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  /** 429 and 5xx (and a connection that could not be made) may succeed when tried again. */
  get retryable(): boolean {
    return this.kind === 'rate-limited' || this.kind === 'server' || this.kind === 'network';
  }
}
