import type { ModelSpec } from './model-spec.js';
import { ProviderError } from './types.js';

/** Tokens assumed for a model the table does not know (a compatible server's): set `--context-window` for it. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
/** The smallest window a session may run with: room for the loop's prompt, instructions and one turn. */
export const MIN_CONTEXT_WINDOW = 4096;
/** The largest window accepted, well above any model's today. */
export const MAX_CONTEXT_WINDOW = 10_000_000;

/** Context windows in tokens by model-name prefix, the longest prefix first within each API. */
const WINDOWS: Record<'anthropic' | 'openai', readonly (readonly [string, number])[]> = {
  // Every Claude model since Claude 3 takes 200k tokens (1M only with a beta header the loop does not send).
  anthropic: [['claude-', 200_000]],
  openai: [
    ['gpt-5', 400_000],
    ['gpt-4.1', 1_047_576],
    ['gpt-4o', 128_000],
    ['gpt-4-turbo', 128_000],
    ['gpt-4', 8_192],
    ['gpt-3.5-turbo', 16_385],
    ['o1', 200_000],
    ['o3', 200_000],
    ['o4', 200_000],
  ],
};

/** The model's context window in tokens: from the table, else DEFAULT_CONTEXT_WINDOW. */
export function contextWindowFor(spec: ModelSpec): number {
  if (spec.provider === 'demo') return 200_000;
  if (spec.provider === 'openai-compatible') return DEFAULT_CONTEXT_WINDOW;
  const found = WINDOWS[spec.provider].find(([prefix]) => spec.model.startsWith(prefix));
  return found?.[1] ?? DEFAULT_CONTEXT_WINDOW;
}

/** `--context-window TOKENS`: a whole number of tokens in range, else null. */
export function parseContextWindow(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return n >= MIN_CONTEXT_WINDOW && n <= MAX_CONTEXT_WINDOW ? n : null;
}

/**
 * Whether the provider refused a request as longer than the model's context: Anthropic says
 * "prompt is too long", OpenAI "maximum context length" (`context_length_exceeded`), compatible
 * servers something close; all as a 400 (or 413).
 */
export function isContextOverflow(error: unknown): boolean {
  if (!(error instanceof ProviderError) || error.kind !== 'client') return false;
  if (error.status !== undefined && error.status !== 400 && error.status !== 413) return false;
  return /context[ _-]?(length|window)|prompt is too long|too many tokens|maximum context|input is too long/i.test(
    error.message,
  );
}
