import type { ExecutionContext } from '@tether/machine';
import { posix } from 'node:path';
import type { ConfigFiles } from './config-files.js';
import { readConfigTree } from './config-files.js';
import { hookLines, isObject, otherSettings, parseJson, serverLines } from './json-config.js';

/**
 * What Codex and Gemini CLI load from a folder once they take it as trusted.
 *
 * - Codex: every `.codex/` from the repository root down to the session folder (`config.toml`
 *   with its MCP servers, sandbox and approval settings, `hooks.json`, rules, skills). TOML is
 *   shown as written, whole.
 * - Gemini CLI: the session folder's `.gemini/` (`settings.json` with its MCP servers, hooks and
 *   tool-discovery commands, extensions, commands, its `.env`).
 */

/** Characters of a text configuration file shown whole in the approval; a larger one is pinned by digest. */
const SHOWN_TEXT = 64 * 1024;

export async function codexConfig(
  context: ExecutionContext,
  root: string,
  folder: string,
): Promise<{ lines: string[]; files: ConfigFiles }> {
  const files: ConfigFiles = { files: [], unpinnable: [] };
  // From the repository root down to the folder, as Codex layers them; paths relative to the folder.
  const below = posix.relative(root, folder);
  const ups = below === '' ? [] : below.split('/').map((_, i, parts) => '../'.repeat(parts.length - i).slice(0, -1));
  for (const up of [...ups, '.']) {
    const base = up === '.' ? folder : posix.join(folder, up);
    const found: ConfigFiles = { files: [], unpinnable: [] };
    await readConfigTree(context, base, '.codex', found);
    const prefix = up === '.' ? '' : `${up}/`;
    files.files.push(...found.files.map((f) => ({ ...f, path: prefix + f.path })));
    files.unpinnable.push(...found.unpinnable.map((why) => prefix + why));
  }
  const lines: string[] = [];
  for (const file of files.files) {
    if (!/\.(toml|json|rules)$/.test(file.path) || file.text.length > SHOWN_TEXT) continue;
    lines.push(`${file.path}, as written:`, ...file.text.split('\n').map((line) => `    ${line}`));
  }
  return { lines, files };
}

export async function geminiConfig(
  context: ExecutionContext,
  folder: string,
): Promise<{ lines: string[]; files: ConfigFiles }> {
  const files: ConfigFiles = { files: [], unpinnable: [] };
  await readConfigTree(context, folder, '.gemini', files);
  files.files = files.files.filter((f) => !/(^|\/)GEMINI\.md$/.test(f.path));
  const lines: string[] = [];
  for (const file of files.files) {
    const manifest = /^\.gemini\/extensions\/[^/]+\/gemini-extension\.json$/.test(file.path);
    if (file.path !== '.gemini/settings.json' && !manifest) continue;
    const parsed = parseJson(file.text);
    if ('why' in parsed) {
      lines.push(`${file.path} is ${parsed.why}`);
      continue;
    }
    const settings = parsed.value;
    if (!isObject(settings)) {
      lines.push(`${file.path} holds ${JSON.stringify(settings)}`);
      continue;
    }
    lines.push(...serverLines(settings.mcpServers, file.path), ...hookLines(settings.hooks, file.path));
    const tools = settings.tools;
    if (isObject(tools)) {
      for (const key of ['discoveryCommand', 'callCommand']) {
        const value = tools[key];
        if (typeof value === 'string') lines.push(`command tools.${key} (${file.path}): ${value}`);
      }
    }
    lines.push(...otherSettings(settings, ['mcpServers', 'hooks'], file.path));
  }
  return { lines, files };
}
