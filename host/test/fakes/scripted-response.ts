/**
 * What a fake model server answers to one request. The same script drives the Anthropic and the
 * OpenAI fakes, so an agent-loop test can run unchanged against either provider.
 */

export interface TurnUsage {
  input: number;
  output: number;
}

/** A turn's usage for `request`. */
export function usageOf(turn: ScriptedTurn, request: Record<string, unknown>): TurnUsage {
  return typeof turn.usage === 'function' ? turn.usage(request) : (turn.usage ?? DEFAULT_USAGE);
}

export interface ScriptedToolCall {
  /** Defaults to `toolu_fake_<turn>_<index>` (Anthropic) or `call_fake_<turn>_<index>` (OpenAI). */
  id?: string;
  name: string;
  /** The raw argument JSON as the API streams it, piece by piece; joined it need not be valid JSON. */
  argumentChunks: string[];
}

/** A successful streamed turn: text first, then tool calls, then usage and the stop reason. */
export interface ScriptedTurn {
  /** Text chunks, one delta event each. */
  text?: string[];
  toolCalls?: ScriptedToolCall[];
  /**
   * Token counts reported by the API, or how to count them from the request (as the API counts
   * what it was sent). Defaults to 10 in, 5 out.
   */
  usage?: TurnUsage | ((request: Record<string, unknown>) => TurnUsage);
  /**
   * The API's own value (`end_turn`/`tool_use`/`max_tokens` for Anthropic, `stop`/`tool_calls`/
   * `length` for OpenAI). Defaults to the tool-use value when there are tool calls, else end of turn.
   */
  stopReason?: string;
  /** Pause between events, in milliseconds (default 0: everything is written at once). */
  chunkDelayMs?: number;
}

/** An HTTP error with the API's real error body (and a Retry-After header when given). */
export interface ScriptedHttpError {
  error: {
    status: number;
    message: string;
    /** The body's `error.type`; defaults to the API's type for the status. */
    type?: string;
    /** Retry-After header: seconds as a number, or the raw header text (e.g. an HTTP-date). */
    retryAfter?: number | string;
  };
}

/** Writes the first `afterEvents` events of `turn` (default: a short text turn), then destroys the socket. */
export interface ScriptedCut {
  cut: { afterEvents: number; turn?: ScriptedTurn };
}

/** Writes the first `afterEvents` events of `turn`, then ends the response cleanly (no closing events). */
export interface ScriptedTruncate {
  truncate: { afterEvents: number; turn?: ScriptedTurn };
}

/** Writes the first `afterEvents` events of `turn` (default 0), then an in-stream error event and ends. */
export interface ScriptedStreamError {
  streamError: { type: string; message: string; afterEvents?: number; turn?: ScriptedTurn };
}

/** Writes the first `afterEvents` events of `turn` (default 0), then an event whose data is not JSON. */
export interface ScriptedMalformed {
  malformed: { afterEvents?: number; turn?: ScriptedTurn };
}

/** Sends the 200 head and then nothing until the client goes away (for interrupt tests). */
export interface ScriptedHang {
  hang: true;
}

export type ScriptedResponse =
  | ScriptedTurn
  | ScriptedHttpError
  | ScriptedCut
  | ScriptedTruncate
  | ScriptedStreamError
  | ScriptedMalformed
  | ScriptedHang;

/** Used by `cut`, `truncate` and the like when the script gives no turn. */
export const DEFAULT_PARTIAL_TURN: ScriptedTurn = { text: ['Hello', ', ', 'world'] };

export const DEFAULT_USAGE = { input: 10, output: 5 } as const;
