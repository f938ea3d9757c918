import type { Choice, ChoiceRef, SessionCommand } from '@tether/shared-protocol';
import { COMMAND_NAME, MAX_SESSION_COMMANDS, MAX_SESSION_MODELS, MAX_SESSION_MODES } from '@tether/shared-protocol';
import * as v from 'valibot';

/**
 * What an agent says of how it may be steered, decoded from its own words: the slash commands it
 * announces (`available_commands_update`), its modes (`modes` in `session/new`'s answer, and
 * `current_mode_update`), its models (`models` in that answer, as Claude Code's and Gemini CLI's
 * adapters give them, set with `session/set_model`; or a config option of category `model`, as
 * Codex's gives it, set with `session/set_config_option`). Everything is the agent's text: ids and
 * names are bounded, entries that do not decode are left out, lists are cut to their caps.
 */

const MAX_ID = 200;
const MAX_NAME = 100;
const MAX_DESCRIPTION = 500;
const MAX_HINT = 200;
/** Entries of an agent's list looked at: more are not read at all. */
const MAX_READ = 1000;

const Str = v.string();

function cut(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function choice(id: string, name: unknown, description: unknown): Choice | undefined {
  if (id === '' || id.length > MAX_ID) return undefined;
  const desc = typeof description === 'string' ? cut(description, MAX_DESCRIPTION) : '';
  return {
    id,
    name: cut(typeof name === 'string' && name.trim() !== '' ? name : id, MAX_NAME),
    ...(desc !== '' ? { description: desc } : {}),
  };
}

const CommandSchema = v.object({
  name: Str,
  description: v.optional(v.nullable(Str)),
  input: v.optional(v.nullable(v.object({ hint: v.optional(v.nullable(Str)) }))),
});

/** The commands of an `available_commands_update`, as Tether lists them (source `agent`). */
export function commandsOf(available: unknown): SessionCommand[] {
  if (!Array.isArray(available)) return [];
  const out: SessionCommand[] = [];
  const seen = new Set<string>();
  for (const raw of available.slice(0, MAX_READ)) {
    const parsed = v.safeParse(CommandSchema, raw);
    if (!parsed.success) continue;
    // A leading slash is the agent's way of writing the name, not part of it.
    const name = parsed.output.name.replace(/^\//, '');
    if (name.length > 64 || !COMMAND_NAME.test(name) || seen.has(name)) continue;
    seen.add(name);
    const hint = parsed.output.input?.hint;
    out.push({
      name,
      description: cut(parsed.output.description ?? '', MAX_DESCRIPTION),
      ...(typeof hint === 'string' && hint.trim() !== '' ? { hint: cut(hint, MAX_HINT) } : {}),
      source: 'agent',
    });
    if (out.length >= MAX_SESSION_COMMANDS) break;
  }
  return out;
}

/** A list of choices with the current one, as far as it decodes. */
export interface Offered {
  choices: Choice[];
  current?: ChoiceRef;
}

function offered(entries: unknown[], idKey: string, currentId: unknown, max: number): Offered {
  const choices: Choice[] = [];
  for (const raw of entries.slice(0, MAX_READ)) {
    if (typeof raw !== 'object' || raw === null) continue;
    const entry = raw as Record<string, unknown>;
    const id = entry[idKey];
    if (typeof id !== 'string' || choices.some((c) => c.id === id)) continue;
    const made = choice(id, entry.name, entry.description);
    if (made) choices.push(made);
    if (choices.length >= max) break;
  }
  const current = choices.find((c) => c.id === currentId);
  return { choices, ...(current ? { current: { id: current.id, name: current.name } } : {}) };
}

const ModeState = v.object({ currentModeId: Str, availableModes: v.array(v.unknown()) });
const ModelState = v.object({ currentModelId: Str, availableModels: v.array(v.unknown()) });
const SelectOption = v.object({
  id: Str,
  type: v.literal('select'),
  category: v.optional(v.nullable(Str)),
  currentValue: Str,
  options: v.array(v.unknown()),
});

/** A select config option's values, flattened out of their groups where the agent groups them. */
function selectValues(options: unknown[]): unknown[] {
  return options
    .slice(0, MAX_READ)
    .flatMap((o) =>
      typeof o === 'object' && o !== null && Array.isArray((o as { options?: unknown }).options)
        ? (o as { options: unknown[] }).options
        : [o],
    );
}

/** The first select config option of a category, if the agent has one. */
function configOption(configOptions: unknown, category: string): v.InferOutput<typeof SelectOption> | undefined {
  if (!Array.isArray(configOptions)) return undefined;
  for (const raw of configOptions.slice(0, MAX_READ)) {
    const parsed = v.safeParse(SelectOption, raw);
    if (parsed.success && parsed.output.category === category) return parsed.output;
  }
  return undefined;
}

/**
 * The modes in a session answer and how a change is made: `modes` with `session/set_mode`, else a
 * config option of category `mode` with `session/set_config_option` (`via` is `config:<option id>`).
 */
export function modesOf(answer: unknown): (Offered & { via: string }) | undefined {
  const o = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
  const state = v.safeParse(ModeState, o.modes);
  if (state.success) {
    const found = offered(state.output.availableModes, 'id', state.output.currentModeId, MAX_SESSION_MODES);
    return { ...found, via: 'set_mode' };
  }
  return fromConfig(o.configOptions, 'mode', MAX_SESSION_MODES);
}

function fromConfig(configOptions: unknown, category: string, max: number): (Offered & { via: string }) | undefined {
  const option = configOption(configOptions, category);
  if (!option || option.id.length > MAX_ID) return undefined;
  return { ...offered(selectValues(option.options), 'value', option.currentValue, max), via: `config:${option.id}` };
}

/**
 * The models in a session answer and how a change is made: `models` with `session/set_model`,
 * else a config option of category `model` with `session/set_config_option` (`via` is
 * `config:<option id>`).
 */
export function modelsOf(answer: unknown): (Offered & { via: string }) | undefined {
  const o = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
  const state = v.safeParse(ModelState, o.models);
  if (state.success) {
    const found = offered(state.output.availableModels, 'modelId', state.output.currentModelId, MAX_SESSION_MODELS);
    return { ...found, via: 'set_model' };
  }
  return fromConfig(o.configOptions, 'model', MAX_SESSION_MODELS);
}
