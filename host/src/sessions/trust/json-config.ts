import { createHash } from 'node:crypto';

/**
 * Reading an agent's JSON settings file (Claude Code's `.claude/settings.json` and `.mcp.json`,
 * Gemini CLI's `.gemini/settings.json`) into lines a person can judge: every command it would run
 * on its own, each MCP server's command line, and every other setting as written. Nothing is
 * shortened; a value that may be a token (a header) is shown by name and a digest of its value.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function parseJson(text: string): { value: Json } | { why: string } {
  try {
    return { value: JSON.parse(text) as Json };
  } catch (error) {
    return { why: `not valid JSON (${(error as Error).message})` };
  }
}

export const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A word as a shell would take it: bare when plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An MCP server entry (`command`/`args`/`env`/`cwd`, or `url`/`httpUrl`/`headers`) as one line. */
export function serverLine(entry: Json): string {
  if (!isObject(entry)) return `an entry that is not an object: ${JSON.stringify(entry)}`;
  const url = typeof entry.url === 'string' ? entry.url : typeof entry.httpUrl === 'string' ? entry.httpUrl : undefined;
  if (url !== undefined) {
    const headers = isObject(entry.headers) ? entry.headers : {};
    const names = Object.keys(headers);
    if (names.length === 0) return url;
    const digest = createHash('sha256').update(JSON.stringify(headers)).digest('hex').slice(0, 8);
    return `${url} (headers: ${names.join(', ')}; values ${digest})`;
  }
  const env = isObject(entry.env)
    ? Object.entries(entry.env).map(([k, v]) => `${k}=${shellWord(typeof v === 'string' ? v : JSON.stringify(v))}`)
    : [];
  const command = typeof entry.command === 'string' ? [shellWord(entry.command)] : [];
  const args = Array.isArray(entry.args)
    ? entry.args.map((a) => shellWord(typeof a === 'string' ? a : JSON.stringify(a)))
    : [];
  const line = [...env, ...command, ...args].join(' ');
  const rest = Object.keys(entry).filter((k) => !['command', 'args', 'env', 'type'].includes(k));
  const extra = rest.map((k) => `${k}: ${JSON.stringify(entry[k])}`);
  return [line || '(no command)', ...extra].join('; ');
}

/** Each server of an `mcpServers` object, labelled with where it is written. */
export function serverLines(servers: Json | undefined, where: string): string[] {
  if (servers === undefined) return [];
  if (!isObject(servers)) return [`MCP servers (${where}): ${JSON.stringify(servers)}`];
  return Object.entries(servers).map(([name, entry]) => `MCP server ${name} (${where}): ${serverLine(entry)}`);
}

/**
 * Hooks in the shape Claude Code and Gemini CLI share: `{ Event: [{ matcher?, hooks: [{ type:
 * "command", command }] }] }`. Each becomes one line naming its event and matcher; a hook of
 * another kind is shown whole.
 */
export function hookLines(hooks: Json | undefined, where: string): string[] {
  if (hooks === undefined) return [];
  if (!isObject(hooks)) return [`hooks (${where}): ${JSON.stringify(hooks)}`];
  const lines: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    for (const group of Array.isArray(groups) ? groups : [groups]) {
      const matcher =
        isObject(group) && typeof group.matcher === 'string' && group.matcher !== '' ? ` [${group.matcher}]` : '';
      const list = isObject(group) && Array.isArray(group.hooks) ? group.hooks : [group];
      for (const hook of list) {
        const command = isObject(hook) && typeof hook.command === 'string' ? hook.command : undefined;
        const rest = isObject(hook) ? Object.keys(hook).filter((k) => k !== 'command' && k !== 'type') : [];
        const detail =
          rest.length > 0 && isObject(hook)
            ? ` (${rest.map((k) => `${k}: ${JSON.stringify(hook[k])}`).join(', ')})`
            : '';
        lines.push(
          command !== undefined
            ? `hook ${event}${matcher} (${where}): ${command}${detail}`
            : `hook ${event}${matcher} (${where}): ${JSON.stringify(hook)}`,
        );
      }
    }
  }
  return lines;
}

/** Every top-level setting not named in `shown`, as `key: value` in compact JSON. */
export function otherSettings(settings: Record<string, Json>, shown: readonly string[], where: string): string[] {
  return Object.keys(settings)
    .filter((key) => !shown.includes(key))
    .map((key) => `setting ${key} (${where}): ${JSON.stringify(settings[key])}`);
}
