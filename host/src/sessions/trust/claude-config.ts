import type { ExecutionContext } from '@tether/machine';
import type { ConfigFiles } from './config-files.js';
import { readConfigFile, readConfigTree } from './config-files.js';
import type { Json } from './json-config.js';
import { hookLines, isObject, otherSettings, parseJson, serverLines } from './json-config.js';

/**
 * What Claude Code loads from a folder when its `project` and `local` settings sources are on:
 * `.claude/` (settings.json and settings.local.json with their hooks, helper commands,
 * permissions and environment; agents, commands, skills, hook scripts) and `.mcp.json`. Its
 * CLAUDE.md files are instructions, not configuration, and need no trust.
 */

/** Settings whose value is a command Claude Code runs itself. */
const COMMAND_SETTINGS = ['apiKeyHelper', 'awsAuthRefresh', 'awsCredentialExport', 'otelHeadersHelper'];

const INSTRUCTIONS = /(^|\/)CLAUDE(\.local)?\.md$/;

export async function claudeCodeConfig(
  context: ExecutionContext,
  folder: string,
): Promise<{ lines: string[]; files: ConfigFiles }> {
  const files: ConfigFiles = { files: [], unpinnable: [] };
  await readConfigTree(context, folder, '.claude', files);
  await readConfigFile(context, folder, '.mcp.json', files);
  files.files = files.files.filter((f) => !INSTRUCTIONS.test(f.path));
  const lines: string[] = [];
  for (const file of files.files) {
    if (file.path === '.mcp.json') {
      const parsed = parseJson(file.text);
      if ('why' in parsed) lines.push(`.mcp.json is ${parsed.why}`);
      else lines.push(...serverLines(isObject(parsed.value) ? parsed.value.mcpServers : parsed.value, '.mcp.json'));
    } else if (/^\.claude\/settings(\.local)?\.json$/.test(file.path)) {
      lines.push(...settingsLines(file.text, file.path));
    }
  }
  return { lines, files };
}

function settingsLines(text: string, where: string): string[] {
  const parsed = parseJson(text);
  if ('why' in parsed) return [`${where} is ${parsed.why}`];
  const settings = parsed.value;
  if (!isObject(settings)) return [`${where} holds ${JSON.stringify(settings)}`];
  const lines = [...hookLines(settings.hooks, where), ...serverLines(settings.mcpServers, where)];
  for (const key of COMMAND_SETTINGS) {
    const value: Json | undefined = settings[key];
    if (value !== undefined)
      lines.push(`command ${key} (${where}): ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  }
  const status = settings.statusLine;
  if (isObject(status) && typeof status.command === 'string')
    lines.push(`command statusLine (${where}): ${status.command}`);
  else if (status !== undefined) lines.push(`setting statusLine (${where}): ${JSON.stringify(status)}`);
  lines.push(...otherSettings(settings, ['hooks', 'mcpServers', 'statusLine', ...COMMAND_SETTINGS], where));
  return lines;
}
