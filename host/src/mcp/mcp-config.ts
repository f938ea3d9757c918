/**
 * The MCP config file, in the shape other agent tools use:
 * `{ "mcpServers": { "<name>": { "command", "args", "env", "cwd" } | { "url", "headers" } } }`,
 * each entry optionally `"trusted": true`. It is decoded like any other trust boundary: a bad file
 * is an error value naming the file, the entry and the problem, never an exception.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Result } from '@tether/shared-protocol';
import { fail } from '@tether/shared-protocol';
import * as v from 'valibot';
import { decodeJson } from '../schema-issues.js';
import { remoteUrlProblem } from './remote-fetch.js';

/** Server names become part of tool names (`mcp__<name>__<tool>`, at most 64 characters). */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,40}$/;

/** A config file is a few KiB; refusing anything past this keeps a wrong path from being slurped. */
export const MAX_MCP_CONFIG_BYTES = 1024 * 1024;

export interface McpStdioServerConfig {
  transport: 'stdio';
  command: string;
  args: string[];
  /** Added to the SDK's safe default environment (PATH, HOME, …), not a replacement for it. */
  env: Record<string, string>;
  /** Absolute: a relative `cwd` in the file is resolved against the file's directory. */
  cwd?: string;
  trusted: boolean;
}

export interface McpHttpServerConfig {
  transport: 'http';
  url: string;
  headers: Record<string, string>;
  trusted: boolean;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export interface McpConfig {
  /** In file order; names are unique (they are the keys of an object). */
  servers: { name: string; config: McpServerConfig }[];
}

const NAME_RULE = 'server names may use only letters, digits, "_" and "-", 1 to 40 characters';

/** Valibot's object and record schemas accept arrays; a JSON array here is always a mistake. */
function notArray<TSchema extends v.GenericSchema>(schema: TSchema, message: string) {
  return v.pipe(
    v.custom<unknown>((value) => typeof value === 'object' && value !== null && !Array.isArray(value), message),
    schema,
  );
}

const StringMap = v.record(v.string(), v.string('must be a string'));

/** The rules of remote-fetch.ts: https unless loopback, no credentials in the URL. */
const HttpUrl = v.pipe(
  v.string('must be a string'),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = remoteUrlProblem(dataset.value);
    if (problem !== undefined) addIssue({ message: problem });
  }),
);

/** Unknown keys (`type`, `disabled`, `autoApprove`, … from other tools) are dropped, not errors. */
const EntrySchema = v.pipe(
  notArray(
    v.object({
      command: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
      args: v.optional(v.array(v.string('must be a string'), 'must be an array of strings')),
      env: v.optional(StringMap),
      cwd: v.optional(v.pipe(v.string('must be a string'), v.nonEmpty('must not be empty'))),
      url: v.optional(HttpUrl),
      headers: v.optional(StringMap),
      trusted: v.optional(v.boolean('must be true or false')),
    }),
    'must be an object',
  ),
  v.check((e) => e.command !== undefined || e.url !== undefined, 'needs either "command" or "url"'),
  v.check((e) => e.command === undefined || e.url === undefined, 'has both "command" and "url"; use one'),
  v.check(
    (e) => e.url === undefined || (e.args === undefined && e.env === undefined && e.cwd === undefined),
    '"args", "env" and "cwd" belong to a "command" entry, not a "url" one',
  ),
  v.check((e) => e.command === undefined || e.headers === undefined, '"headers" belong to a "url" entry'),
);

const FileSchema = notArray(
  v.object({
    mcpServers: v.optional(
      notArray(v.record(v.pipe(v.string(), v.regex(MCP_SERVER_NAME, NAME_RULE)), EntrySchema), 'must be an object'),
      {},
    ),
  }),
  'the file must hold a JSON object',
);

/**
 * Reads and decodes the config. A missing file is an empty config unless `required` (the default
 * `<data-dir>/mcp.json` is optional; a file named by `--mcp-config` is not).
 */
export function loadMcpConfig(path: string, options: { required: boolean }): Result<McpConfig> {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_MCP_CONFIG_BYTES) {
      return fail('invalid-params', `MCP config ${path}: ${size} bytes is too large (limit ${MAX_MCP_CONFIG_BYTES})`);
    }
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && !options.required) return { ok: true, value: { servers: [] } };
    if (code === 'ENOENT') return fail('invalid-params', `MCP config ${path} does not exist`);
    return fail('invalid-params', `MCP config ${path} cannot be read: ${(error as Error).message}`);
  }
  const decoded = decodeMcpConfig(text, dirname(resolve(path)));
  return decoded.ok ? decoded : fail('invalid-params', `MCP config ${path}: ${decoded.error.message}`);
}

/** Decodes the file's text; `baseDir` anchors relative `cwd` values. */
export function decodeMcpConfig(text: string, baseDir: string): Result<McpConfig> {
  const parsed = decodeJson(text, FileSchema);
  if (!parsed.ok) return parsed;
  const servers = Object.entries(parsed.value.mcpServers).map(([name, entry]) => {
    const trusted = entry.trusted ?? false;
    const config: McpServerConfig =
      entry.command !== undefined
        ? {
            transport: 'stdio',
            command: entry.command,
            args: entry.args ?? [],
            env: entry.env ?? {},
            ...(entry.cwd !== undefined ? { cwd: resolve(baseDir, entry.cwd) } : {}),
            trusted,
          }
        : { transport: 'http', url: entry.url ?? '', headers: entry.headers ?? {}, trusted };
    return { name, config };
  });
  return { ok: true, value: { servers } };
}
