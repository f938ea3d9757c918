import type { Clock } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import { contextWindowFor } from '../models/context-window.js';
import type { ModelConfig } from '../models/model-config.js';
import { configuredWindow } from '../models/model-config.js';
import type { ModelSpec } from '../models/model-spec.js';
import {
  DEFAULT_ANTHROPIC_MODEL,
  DEFAULT_OPENAI_MODEL,
  formatModelSpec,
  isSet,
  parseModelSpec,
} from '../models/model-spec.js';
import { createProvider } from '../models/registry.js';
import type { ProviderFactory } from '../sessions/builtin/builtin-backend.js';
import type { HostOptions } from './host-options.js';

/** How the built-in loop gets a model provider for a session's model, with retries said as notices. */
export function providerFactory(
  options: HostOptions,
  clock: Clock,
  defaultModel: string,
  modelConfig: ModelConfig,
): ProviderFactory {
  return (spec, onNotice) => {
    const parsed = parseModelSpec(spec);
    if (!parsed.ok) return parsed;
    const made = createProvider(parsed.value, options.env, {
      clock,
      ...(options.demoDelayMs !== undefined ? { demo: { delayMs: options.demoDelayMs } } : {}),
      retry: {
        clock,
        ...(options.retryBaseDelayMs !== undefined ? { baseDelayMs: options.retryBaseDelayMs } : {}),
        onRetry: ({ attempt, maxAttempts, delayMs, error }) =>
          onNotice(
            `The model API failed (${error.message}); trying again in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1} of ${maxAttempts}).`,
          ),
      },
    });
    if (!made.ok) return made;
    // --context-window names the default model's; then models.json; then the built-in table.
    const contextWindow =
      spec === defaultModel && options.contextWindow !== undefined
        ? options.contextWindow
        : (configuredWindow(modelConfig, parsed.value) ?? contextWindowFor(parsed.value));
    return ok({ provider: made.value, model: parsed.value.model, contextWindow });
  };
}

/**
 * Models a device may pick: the default first, then the demo, then each provider with a key, then
 * each model `models.json` names whose provider can be reached (an Anthropic or OpenAI model with
 * its key set, any compatible server).
 */
export function offeredModels(
  defaultSpec: ModelSpec,
  environment: NodeJS.ProcessEnv,
  config: ModelConfig = { windows: new Map() },
): string[] {
  const models = [formatModelSpec(defaultSpec), 'demo'];
  if (isSet(environment.ANTHROPIC_API_KEY)) models.push(`anthropic:${DEFAULT_ANTHROPIC_MODEL}`);
  if (isSet(environment.OPENAI_API_KEY)) models.push(`openai:${DEFAULT_OPENAI_MODEL}`);
  for (const spec of config.windows.keys()) {
    const parsed = parseModelSpec(spec);
    if (parsed.ok && createProvider(parsed.value, environment).ok) models.push(spec);
  }
  return [...new Set(models)];
}
