/**
 * The model config, `<data-dir>/models.json`: what the host should know about a model that it
 * cannot know from its name. Today one field, the context window in tokens:
 *
 *   { "models": { "openai-compatible:llama3.1:8b@http://localhost:11434/v1": { "contextWindow": 32768 } } }
 *
 * Keys are model specs as `--model` takes them. Closed schema: an unknown field, a key that is
 * not a model spec or a window out of range stops `tether start` with a message naming it.
 * For a model it names, it wins over the built-in table; `--context-window` still wins for the
 * default model (a flag given now over a file written before).
 */
import type { Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import { decodeConfig, readConfigFile } from './config-file.js';
import { MAX_CONTEXT_WINDOW, MIN_CONTEXT_WINDOW } from './context-window.js';
import type { ModelSpec } from './model-spec.js';
import { formatModelSpec, parseModelSpec } from './model-spec.js';

const ModelEntry = v.strictObject(
  {
    contextWindow: v.pipe(
      v.number('must be a number of tokens'),
      v.integer('must be a whole number of tokens'),
      v.minValue(MIN_CONTEXT_WINDOW, `must be at least ${MIN_CONTEXT_WINDOW} tokens`),
      v.maxValue(MAX_CONTEXT_WINDOW, `must be at most ${MAX_CONTEXT_WINDOW} tokens`),
    ),
  },
  (issue) => (issue.input === undefined ? 'is required' : 'is a field the model config does not define'),
);

const FileSchema = v.strictObject(
  {
    models: v.record(
      v.pipe(
        v.string(),
        v.check((key) => parseModelSpec(key).ok, 'is not a model spec (as --model takes it)'),
      ),
      ModelEntry,
      'must be an object',
    ),
  },
  (issue) => (issue.input === undefined ? 'is required' : 'is a field the model config does not define'),
);

export interface ModelConfig {
  /** By the spec's canonical text (formatModelSpec). */
  windows: ReadonlyMap<string, number>;
}

export const EMPTY_MODEL_CONFIG: ModelConfig = { windows: new Map() };

/** The config at `path`; a missing file is an empty config. */
export function loadModelConfig(path: string): Result<ModelConfig> {
  const text = readConfigFile(path, 'model config');
  if (!text.ok) return text;
  if (text.value === undefined) return ok(EMPTY_MODEL_CONFIG);
  const decoded = decodeModelConfig(text.value);
  return decoded.ok ? decoded : fail('invalid-params', `model config ${path}: ${decoded.error.message}`);
}

export function decodeModelConfig(text: string): Result<ModelConfig> {
  const parsed = decodeConfig(text, FileSchema);
  if (!parsed.ok) return parsed;
  const windows = new Map<string, number>();
  for (const [key, entry] of Object.entries(parsed.value.models)) {
    const spec = parseModelSpec(key);
    if (spec.ok) windows.set(formatModelSpec(spec.value), entry.contextWindow);
  }
  return ok({ windows });
}

/** The window the config gives this model, if any. */
export function configuredWindow(config: ModelConfig, spec: ModelSpec): number | undefined {
  return config.windows.get(formatModelSpec(spec));
}
