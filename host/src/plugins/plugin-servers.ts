/**
 * A plugin's `mcp.json`: its MCP servers, each decoded on its own so a bad one disables only
 * itself. Stricter than the host's own `mcp.json` (mcp-config.ts), because a plugin is a folder
 * someone else wrote:
 *
 * - Closed entries: `type`, `command`, `args`, `env`, `cwd`, `url`, `headers` and nothing else
 *   (no `trusted`: a plugin cannot exempt its own tools from approval).
 * - `command` is a bare program name looked up on PATH (`npx`, `node`, `uvx`), or a relative path
 *   to a file inside the plugin (`./bin/server`), resolved by real path and refused when it leads
 *   out. An absolute command is refused: it names a program on this computer the plugin does
 *   not ship, and nothing portable needs one.
 * - `cwd` is relative and stays inside the plugin by real path; it defaults to the plugin folder.
 * - `url` follows the remote rules (https unless loopback, no credentials in it).
 */
import type { ExecutionContext } from '@tether/machine';
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import { decodeMcpConfig, MCP_SERVER_NAME } from '../mcp/mcp-config.js';

/** Bytes of a plugin's mcp.json read at most. */
export const MAX_PLUGIN_MCP_BYTES = 256 * 1024;
/** Servers taken from one plugin; the rest are listed as disabled. */
export const MAX_PLUGIN_SERVERS = 20;

const FIELDS = new Set(['type', 'command', 'args', 'env', 'cwd', 'url', 'headers']);

export interface PluginServer {
  name: string;
  /** Set when the entry is usable; absent with `why`. */
  config?: McpServerConfig;
  /** Why this server is disabled (the rest of the plugin is not). */
  why?: string;
}

/** The servers of the plugin at `folder` (an absent mcp.json is none), or why the file is unusable. */
export async function readPluginServers(
  context: ExecutionContext,
  folder: string,
): Promise<{ servers: PluginServer[]; why?: string }> {
  const read = await context.readFile(folder, 'mcp.json', MAX_PLUGIN_MCP_BYTES);
  if (!read.ok)
    return read.error.code === 'not-found' ? { servers: [] } : { servers: [], why: `mcp.json: ${read.error.message}` };
  let json: unknown;
  try {
    json = JSON.parse(read.value.text);
  } catch (error) {
    return { servers: [], why: `mcp.json is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    return { servers: [], why: 'mcp.json must hold a JSON object' };
  const top = json as Record<string, unknown>;
  const extra = Object.keys(top).filter((k) => k !== '$schema' && k !== 'mcpServers');
  if (extra.length > 0) return { servers: [], why: `mcp.json: ${extra[0]} is a field the format does not define` };
  const entries = top['mcpServers'] ?? {};
  if (typeof entries !== 'object' || entries === null || Array.isArray(entries))
    return { servers: [], why: 'mcp.json: mcpServers must be an object' };
  const servers: PluginServer[] = [];
  for (const [i, [name, entry]] of Object.entries(entries).entries()) {
    if (i >= MAX_PLUGIN_SERVERS) {
      servers.push({ name, why: `only the first ${MAX_PLUGIN_SERVERS} servers of a plugin are read` });
      continue;
    }
    servers.push(await decodeServer(context, folder, name, entry));
  }
  return { servers };
}

async function decodeServer(
  context: ExecutionContext,
  folder: string,
  name: string,
  entry: unknown,
): Promise<PluginServer> {
  if (!MCP_SERVER_NAME.test(name))
    return { name, why: 'its name may use only letters, digits, "_" and "-", 1 to 40 characters' };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return { name, why: 'its entry must be an object' };
  const fields = { ...(entry as Record<string, unknown>) };
  const unknown = Object.keys(fields).find((k) => !FIELDS.has(k));
  if (unknown !== undefined) return { name, why: `${unknown} is a field the format does not define` };
  const type = fields['type'];
  delete fields['type'];
  if (type !== undefined && type !== 'stdio' && type !== 'http')
    return { name, why: 'its type must be "stdio" or "http"' };
  const decoded = decodeMcpConfig(JSON.stringify({ mcpServers: { [name]: fields } }), folder);
  if (!decoded.ok)
    return { name, why: decoded.error.message.replace(`mcpServers.${name}`, 'its entry').replace(/^its entry\./, '') };
  const config = decoded.value.servers[0]!.config;
  if (type !== undefined && type !== config.transport)
    return { name, why: `its type "${type}" does not match its ${config.transport === 'http' ? 'url' : 'command'}` };
  if (config.transport === 'http') return { name, config };

  const command = config.command;
  if (posix.isAbsolute(command) || /^[A-Za-z]:[\\/]/.test(command) || command.startsWith('\\')) {
    return {
      name,
      why: `its command ${command} is an absolute path; a plugin's server runs a program on PATH or a file inside the plugin`,
    };
  }
  let program = command;
  if (command.includes('/') || command.includes('\\')) {
    const real = await context.realPath(folder, command);
    if (!real.ok) return { name, why: `its command ${command} is not inside the plugin: ${real.error.message}` };
    program = real.value;
  }
  const rawCwd = typeof fields['cwd'] === 'string' ? fields['cwd'] : '.';
  if (posix.isAbsolute(rawCwd))
    return { name, why: `its cwd ${rawCwd} is an absolute path; it must be inside the plugin` };
  const cwd = await context.realPath(folder, rawCwd);
  if (!cwd.ok) return { name, why: `its cwd ${rawCwd} is not inside the plugin: ${cwd.error.message}` };
  return { name, config: { ...config, command: program, cwd: cwd.value, trusted: false } };
}

/**
 * The exact command line a server runs, as a person is shown it before allowing it and as the
 * allowance keeps it. For a remote server: its URL and header names, with a short digest of the
 * header values (a changed value is a changed server, and the values, maybe tokens, are not shown).
 */
export function serverCommandLine(config: McpServerConfig): string {
  if (config.transport === 'http') {
    const headers = Object.keys(config.headers);
    if (headers.length === 0) return config.url;
    const digest = createHash('sha256').update(JSON.stringify(config.headers)).digest('hex').slice(0, 8);
    return `${config.url} (headers: ${headers.join(', ')}; values ${digest})`;
  }
  const env = Object.keys(config.env).map((k) => `${k}=${shellQuote(config.env[k]!)}`);
  const line = [...env, shellQuote(config.command), ...config.args.map(shellQuote)].join(' ');
  return config.cwd !== undefined ? `${line}  (in ${config.cwd})` : line;
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
