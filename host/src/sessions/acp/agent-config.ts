/**
 * ACP agents by name: ready entries for the common adapters, and `<data-dir>/agents.json` to add
 * more or change them:
 *
 *     { "agents": { "<name>": { "command", "args", "env", "passEnv", "allowEnv", "title" } },
 *       "prompts": { "<program>": { "writtenFor", "patterns": ["<pattern>", …] } } }
 *
 * An entry with a ready entry's name replaces it. `prompts` names, per wrapped program (`tether
 * run`; `*` for all), the questions its screen stops at and the version of the program they were
 * written for, replacing the ready set for that program (a bare array of patterns is a set written
 * for no version in particular). The file is a trust boundary like any other: a bad one is an
 * error value naming the file, the entry and the problem, never an exception.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { AGENT_NAME, fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import { decodeJson } from '../../schema-issues.js';
import type { PromptSet } from './ready-prompts.js';
import { READY_PROMPTS } from './ready-prompts.js';
import { TETHER_VARIABLES } from './agent-env.js';
import { loadsCode } from './acp-command-env.js';

export interface AgentSpec {
  name: string;
  title: string;
  /** A program, looked up on PATH when it is a bare name. */
  command: string;
  args: string[];
  /** Set in the agent's environment, on top of what commands get. */
  env: Record<string, string>;
  /**
   * Names of the host's own environment variables handed to the agent as they are (an API key it
   * needs, which commands otherwise never see). Only for agents run on this computer.
   */
  passEnv: string[];
  /**
   * Variables the person lets this agent set on the commands it runs, beyond those known to be
   * inert (acp-command-env.ts); each command still asks, showing them. Never one that loads code.
   */
  allowEnv: string[];
}

/**
 * The adapters people use, offered when their command is found on PATH. Each reads its own
 * credentials: the key named in `passEnv`, or its own login (`claude /login`, `codex login`,
 * `gemini` once interactively).
 */
export const READY_AGENTS: readonly AgentSpec[] = [
  {
    name: 'claude-code',
    title: 'Claude Code',
    command: 'claude-code-acp',
    args: [],
    env: {},
    passEnv: ['ANTHROPIC_API_KEY'],
    allowEnv: [],
  },
  {
    name: 'codex',
    title: 'Codex',
    command: 'codex-acp',
    args: [],
    env: {},
    passEnv: ['OPENAI_API_KEY'],
    allowEnv: [],
  },
  {
    name: 'gemini',
    title: 'Gemini CLI',
    command: 'gemini',
    args: ['--experimental-acp'],
    env: {},
    passEnv: [],
    allowEnv: [],
  },
];

/** A config file is a few KiB; refusing anything past this keeps a wrong path from being slurped. */
export const MAX_AGENTS_CONFIG_BYTES = 256 * 1024;

export function agentsConfigPath(dataDir: string): string {
  return join(dataDir, 'agents.json');
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NAME_RULE =
  'agent names use letters, digits, ".", "_" and "-", 1 to 40 characters, starting with a letter or digit';

function notArray<TSchema extends v.GenericSchema>(schema: TSchema, message: string) {
  return v.pipe(
    v.custom<unknown>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), message),
    schema,
  );
}

const EntrySchema = notArray(
  v.object({
    title: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'), v.maxLength(100))),
    command: v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty')),
    args: v.optional(v.array(v.string('must be a string'), 'must be an array of strings')),
    env: v.optional(
      v.record(
        v.pipe(v.string(), v.regex(ENV_NAME, 'environment variable names are letters, digits and "_"')),
        v.string('must be a string'),
      ),
    ),
    passEnv: v.optional(
      v.array(
        v.pipe(
          v.string('must be a string'),
          v.regex(ENV_NAME, 'environment variable names are letters, digits and "_"'),
          v.check(
            (name) => !TETHER_VARIABLES.test(name),
            "Tether's own TETHER_* variables are never passed to an agent",
          ),
        ),
        'must be an array of names',
      ),
    ),
    allowEnv: v.optional(
      v.array(
        v.pipe(
          v.string('must be a string'),
          v.regex(ENV_NAME, 'environment variable names are letters, digits and "_"'),
          v.check(
            (name) => loadsCode(name) === undefined,
            (issue) => `${String(issue.input)} is never allowed: ${loadsCode(String(issue.input))?.why ?? ''}`,
          ),
        ),
        'must be an array of names',
      ),
    ),
  }),
  'must be an object',
);

const PatternSchema = v.pipe(
  v.string('must be a string'),
  v.nonEmpty('must not be empty'),
  v.maxLength(500),
  v.check((source) => {
    try {
      new RegExp(source, 'u');
      return true;
    } catch {
      return false;
    }
  }, 'must be a valid regular expression'),
);

const PatternsSchema = v.pipe(v.array(PatternSchema, 'must be an array of patterns'), v.maxLength(50));

const PROMPT_SET_RULE = 'must be an array of patterns, or an object with writtenFor and patterns';

const PromptSetSchema = notArray(
  v.strictObject({
    writtenFor: v.optional(v.pipe(v.string('must be a string'), v.maxLength(100))),
    patterns: PatternsSchema,
  }),
  PROMPT_SET_RULE,
);

const FileSchema = notArray(
  v.object({
    agents: v.optional(
      notArray(v.record(v.pipe(v.string(), v.regex(AGENT_NAME, NAME_RULE)), EntrySchema), 'must be an object'),
      {},
    ),
    prompts: v.optional(
      notArray(
        v.record(
          v.pipe(v.string(), v.nonEmpty(), v.maxLength(100)),
          v.union([PatternsSchema, PromptSetSchema], PROMPT_SET_RULE),
        ),
        'must be an object',
      ),
      {},
    ),
  }),
  'the file must hold a JSON object',
);

/** What `agents.json` configures: the ACP agents, and the questions wrapped programs ask. */
export interface AgentsConfig {
  agents: AgentSpec[];
  prompts: Record<string, PromptSet>;
}

const READY_CONFIG: AgentsConfig = { agents: [...READY_AGENTS], prompts: { ...READY_PROMPTS } };

/** The ready agents with the file's entries over them; a missing file is no change unless `required`. */
export function loadAgents(path: string, options: { required?: boolean } = {}): Result<AgentsConfig> {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_AGENTS_CONFIG_BYTES) {
      return fail(
        'invalid-params',
        `agents config ${path}: ${size} bytes is too large (limit ${MAX_AGENTS_CONFIG_BYTES})`,
      );
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !options.required) return ok(READY_CONFIG);
    return fail('invalid-params', `agents config ${path} cannot be read: ${(error as Error).message}`);
  }
  const decoded = decodeAgents(text);
  return decoded.ok ? decoded : fail('invalid-params', `agents config ${path}: ${decoded.error.message}`);
}

export function decodeAgents(text: string): Result<AgentsConfig> {
  const parsed = decodeJson(text, FileSchema);
  if (!parsed.ok) return parsed;
  const byName = new Map(READY_AGENTS.map((spec) => [spec.name, spec]));
  for (const [name, entry] of Object.entries(parsed.value.agents)) {
    byName.set(name, {
      name,
      title: entry.title ?? name,
      command: entry.command,
      args: entry.args ?? [],
      env: entry.env ?? {},
      passEnv: entry.passEnv ?? [],
      allowEnv: entry.allowEnv ?? [],
    });
  }
  const prompts: Record<string, PromptSet> = { ...READY_PROMPTS };
  for (const [program, set] of Object.entries(parsed.value.prompts)) {
    prompts[program] = Array.isArray(set)
      ? { writtenFor: '', patterns: set }
      : { writtenFor: set.writtenFor ?? '', patterns: set.patterns };
  }
  return ok({ agents: [...byName.values()], prompts });
}
