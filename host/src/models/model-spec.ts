import type { Result } from '@tether/shared-protocol';
import { fail } from '@tether/shared-protocol';

/**
 * The `--model` value: which API to talk to and which of its models. Parsed once at the edge
 * (CLI, config) so the rest of the host only ever sees a valid ModelSpec.
 */

export type ModelProviderName = 'anthropic' | 'openai' | 'openai-compatible' | 'demo';

export interface ModelSpec {
  provider: ModelProviderName;
  /** The provider's own model name; `demo` for the built-in demo model. */
  model: string;
  /** Only for `openai-compatible`: the server's base URL, http(s), as given (e.g. `http://localhost:11434/v1`). */
  baseUrl?: string;
}

export const ACCEPTED_MODEL_SPECS =
  'anthropic:<model> (e.g. anthropic:claude-sonnet-5-5), openai:<model> (e.g. openai:gpt-5.4), ' +
  'openai-compatible:<model>@<http(s) base URL> (e.g. openai-compatible:llama3.1@http://localhost:11434/v1), or demo';

const DEMO: ModelSpec = { provider: 'demo', model: 'demo' };

export function parseModelSpec(text: string): Result<ModelSpec> {
  const trimmed = text.trim();
  if (trimmed === 'demo') return { ok: true, value: DEMO };
  const colon = trimmed.indexOf(':');
  if (colon === -1) return invalid(text, 'it names no provider');
  const provider = trimmed.slice(0, colon);
  const rest = trimmed.slice(colon + 1);
  switch (provider) {
    case 'anthropic':
    case 'openai': {
      const problem = modelNameProblem(rest);
      if (problem !== undefined) return invalid(text, problem);
      return { ok: true, value: { provider, model: rest } };
    }
    case 'openai-compatible':
      return parseCompatible(text, rest);
    case 'demo':
      return invalid(text, 'the demo model takes no name; write just demo');
    default:
      return invalid(text, `unknown provider "${provider}"`);
  }
}

/** The inverse of parseModelSpec: `parseModelSpec(formatModelSpec(s))` gives `s` back. */
export function formatModelSpec(spec: ModelSpec): string {
  switch (spec.provider) {
    case 'demo':
      return 'demo';
    case 'openai-compatible':
      return `openai-compatible:${spec.model}@${spec.baseUrl ?? ''}`;
    case 'anthropic':
    case 'openai':
      return `${spec.provider}:${spec.model}`;
  }
}

/**
 * The defaults when only a key is set. Note: @anthropic-ai/sdk 1.14 lists claude-sonnet-4-5 as
 * deprecated (end of life 2026-11-30) and console.warns on every request that names it.
 */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5-5';
export const DEFAULT_OPENAI_MODEL = 'gpt-5.4';

/** The model used when none is given: a real one when an API key is set, else the demo. */
export function defaultModelSpec(env: Readonly<Record<string, string | undefined>>): ModelSpec {
  if (isSet(env['ANTHROPIC_API_KEY'])) return { provider: 'anthropic', model: DEFAULT_ANTHROPIC_MODEL };
  if (isSet(env['OPENAI_API_KEY'])) return { provider: 'openai', model: DEFAULT_OPENAI_MODEL };
  return DEMO;
}

export function isSet(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/**
 * The base URL starts at the first `@http://` or `@https://`, so a model name may itself hold
 * `@` or `:` (Ollama tags such as `llama3.1:8b`) and the URL may hold `@` (user info).
 */
function parseCompatible(text: string, rest: string): Result<ModelSpec> {
  const at = rest.search(/@https?:\/\//i);
  if (at === -1) return invalid(text, 'openai-compatible needs a base URL after @, starting with http:// or https://');
  const model = rest.slice(0, at);
  const problem = modelNameProblem(model);
  if (problem !== undefined) return invalid(text, problem);
  const baseUrl = rest.slice(at + 1);
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return invalid(text, `"${baseUrl}" is not a valid URL`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') {
    return invalid(text, 'the base URL must be http(s) with a host');
  }
  return { ok: true, value: { provider: 'openai-compatible', model, baseUrl } };
}

function modelNameProblem(model: string): string | undefined {
  if (model === '') return 'the model name is empty';
  if (/\s/.test(model)) return 'the model name contains a space';
  return undefined;
}

function invalid(text: string, problem: string): Result<never> {
  return fail('invalid-params', `Invalid model "${text}": ${problem}. Accepted: ${ACCEPTED_MODEL_SPECS}.`);
}
