import type { Clock, Result } from '@tether/shared-protocol';
import { fail } from '@tether/shared-protocol';
import { AnthropicProvider } from './anthropic.js';
import { DemoProvider, type DemoProviderOptions } from './demo.js';
import { formatModelSpec, isSet, type ModelSpec } from './model-spec.js';
import { OpenAIProvider } from './openai.js';
import { withRetry, type RetryOptions } from './retry.js';
import type { ModelProvider } from './types.js';

export interface CreateProviderOptions {
  /** When given, the provider is wrapped in withRetry with these options. */
  retry?: RetryOptions;
  demo?: DemoProviderOptions;
  /** For the HTTP providers' idle timer (see DEFAULT_IDLE_TIMEOUT_MS). */
  idleTimeoutMs?: number;
  clock?: Clock;
}

/**
 * The provider for a parsed `--model`. Reads only `env`, never `process.env`:
 * ANTHROPIC_API_KEY / OPENAI_API_KEY (required for those APIs; optional for compatible servers),
 * and ANTHROPIC_BASE_URL / OPENAI_BASE_URL to point the SDKs elsewhere (a proxy, or a loopback
 * fake in tests). A compatible server's URL comes from the spec itself.
 */
export function createProvider(
  spec: ModelSpec,
  env: Readonly<Record<string, string | undefined>>,
  options: CreateProviderOptions = {},
): Result<ModelProvider> {
  const made = build(spec, env, options);
  if (!made.ok || options.retry === undefined) return made;
  return { ok: true, value: withRetry(made.value, { clock: options.clock, ...options.retry }) };
}

function build(
  spec: ModelSpec,
  env: Readonly<Record<string, string | undefined>>,
  options: CreateProviderOptions,
): Result<ModelProvider> {
  const http = { model: spec.model, idleTimeoutMs: options.idleTimeoutMs, clock: options.clock };
  switch (spec.provider) {
    case 'demo':
      return { ok: true, value: new DemoProvider({ clock: options.clock, ...options.demo }) };
    case 'anthropic': {
      const apiKey = env['ANTHROPIC_API_KEY'];
      if (!isSet(apiKey)) return missingKey('ANTHROPIC_API_KEY', spec);
      const baseUrl = baseUrlFromEnv(env, 'ANTHROPIC_BASE_URL');
      if (!baseUrl.ok) return baseUrl;
      return { ok: true, value: new AnthropicProvider({ ...http, apiKey, baseUrl: baseUrl.value }) };
    }
    case 'openai': {
      const apiKey = env['OPENAI_API_KEY'];
      if (!isSet(apiKey)) return missingKey('OPENAI_API_KEY', spec);
      const baseUrl = baseUrlFromEnv(env, 'OPENAI_BASE_URL');
      if (!baseUrl.ok) return baseUrl;
      return { ok: true, value: new OpenAIProvider({ ...http, flavor: 'openai', apiKey, baseUrl: baseUrl.value }) };
    }
    case 'openai-compatible': {
      if (spec.baseUrl === undefined) {
        return fail('invalid-params', `openai-compatible:${spec.model} needs a base URL (model@http://host:port/v1)`);
      }
      const apiKey = env['OPENAI_API_KEY'];
      return {
        ok: true,
        value: new OpenAIProvider({
          ...http,
          flavor: 'openai-compatible',
          apiKey: isSet(apiKey) ? apiKey : undefined,
          baseUrl: spec.baseUrl,
        }),
      };
    }
  }
}

function missingKey(variable: string, spec: ModelSpec): Result<never> {
  return fail(
    'invalid-params',
    `${formatModelSpec(spec)} needs ${variable} to be set. Set it, pick another model with --model, or use --model demo to try Tether without a key.`,
  );
}

/** An unset variable means the API's own URL; a set one must be http(s). */
function baseUrlFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
): Result<string | undefined> {
  const value = env[variable];
  if (!isSet(value)) return { ok: true, value: undefined };
  const trimmed = value.trim();
  try {
    const url = new URL(trimmed);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { ok: true, value: trimmed };
  } catch {
    // Reported below.
  }
  return fail('invalid-params', `${variable}="${value}" is not an http(s) URL`);
}
