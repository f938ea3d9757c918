/**
 * Agent Plugins 1.0: folders with a `plugin.json` manifest, and optionally `skills/` (Agent
 * Skills) and `mcp.json` (MCP servers). Found in `<project>/.agents/plugins/` and
 * `~/.agents/plugins/`, immediate children only, read through the session's execution context
 * with every path confined to the plugin folder by real path.
 *
 * A plugin's identity is its manifest's `name`; the project's copy wins over the person's. A bad
 * manifest rejects the plugin, a bad skill or server disables only itself, and a plugin that
 * cannot be used is still listed, with why.
 */
import type { ExecutionContext } from '@tether/machine';
import { posix } from 'node:path';
import type { Skill, SkillScope, SkillSet } from '../tools/skills.js';
import { projectFolder, readSkillsFolder } from '../tools/skills.js';
import { decodeManifest, MAX_MANIFEST_BYTES } from './plugin-manifest.js';
import type { PluginServer } from './plugin-servers.js';
import { readPluginServers } from './plugin-servers.js';

/** Plugin folders looked at per location; more are listed as failed. */
export const MAX_PLUGINS = 50;

/**
 * `enabled`: its skills and servers are offered; `disabled`: turned off by the person;
 * `failed`: its manifest (or folder) is unusable; `skipped`: the project's plugin of the same name is used.
 */
export type PluginStatus = 'enabled' | 'disabled' | 'failed' | 'skipped';

export interface Plugin {
  /** The manifest's name; the folder's name when the manifest could not be read. */
  name: string;
  scope: SkillScope;
  folder: string;
  status: PluginStatus;
  /** Why it is not enabled. */
  why?: string;
  version?: string;
  description?: string;
  skills: Skill[];
  servers: PluginServer[];
  /** Components disabled on their own (a skill, the mcp.json file), each with why. */
  problems: string[];
}

/**
 * Every plugin in both locations, in the order found (project first; none of the project's when
 * `project` is not given, as for a folder not trusted). The project's plugins folder must itself
 * lie in the project by real path: one that links out of it is listed as failed, not followed.
 */
export async function discoverPlugins(
  context: ExecutionContext,
  project: string | undefined,
  home: string | undefined,
  disabled: readonly string[],
): Promise<Plugin[]> {
  const plugins: Plugin[] = [];
  const locations: [SkillScope, string][] = [];
  if (project !== undefined) {
    const folder = await projectFolder(context, project, 'plugins');
    if ('why' in folder) {
      const path = posix.join(project, '.agents', 'plugins');
      plugins.push({ ...empty('.agents/plugins', 'project', path), status: 'failed', why: folder.why });
    } else if (folder.path !== undefined) locations.push(['project', folder.path]);
  }
  if (home !== undefined) locations.push(['user', posix.join(home, '.agents', 'plugins')]);
  for (const [scope, root] of locations) {
    const listed = await context.listDir(root, '.', MAX_PLUGINS + 1);
    if (!listed.ok && listed.error.code === 'unreachable') break;
    if (!listed.ok) continue;
    // In name order, so which of two same-named plugins wins never depends on the file system.
    const entries = listed.value.entries
      .filter((e) => !e.name.startsWith('.') && e.type !== 'file')
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const [i, entry] of entries.entries()) {
      const folder = posix.join(root, entry.name);
      const failed = (why: string): Plugin => ({ ...empty(entry.name, scope, folder), status: 'failed', why });
      if (i >= MAX_PLUGINS) plugins.push(failed(`only the first ${MAX_PLUGINS} plugin folders are read`));
      else if (entry.type !== 'dir') plugins.push(failed('it is a link or a special file, not a folder'));
      else plugins.push(await readPlugin(context, scope, folder, entry.name, plugins, disabled));
    }
  }
  return plugins;
}

function empty(name: string, scope: SkillScope, folder: string): Plugin {
  return { name, scope, folder, status: 'enabled', skills: [], servers: [], problems: [] };
}

async function readPlugin(
  context: ExecutionContext,
  scope: SkillScope,
  folder: string,
  folderName: string,
  found: readonly Plugin[],
  disabled: readonly string[],
): Promise<Plugin> {
  const read = await context.readFile(folder, 'plugin.json', MAX_MANIFEST_BYTES);
  if (!read.ok) {
    const why = read.error.code === 'not-found' ? 'it has no plugin.json' : `plugin.json: ${read.error.message}`;
    return { ...empty(folderName, scope, folder), status: 'failed', why };
  }
  const manifest = decodeManifest(read.value.text);
  if (!manifest.ok) return { ...empty(folderName, scope, folder), status: 'failed', why: manifest.error.message };
  const { name, version, description } = manifest.value;
  const plugin: Plugin = {
    ...empty(name, scope, folder),
    ...(version !== undefined ? { version } : {}),
    ...(description !== undefined ? { description } : {}),
  };
  const winner = found.find((p) => p.name === name && p.status !== 'failed' && p.status !== 'skipped');
  if (winner) {
    const why =
      winner.scope === scope
        ? `another plugin here is named ${name} (${winner.folder})`
        : `the project's plugin of the same name is used`;
    return { ...plugin, status: 'skipped', why };
  }
  if (disabled.includes(name)) return { ...plugin, status: 'disabled', why: 'disabled with tether plugins disable' };

  const skillsRoot = await context.realPath(folder, 'skills');
  if (!skillsRoot.ok) plugin.problems.push(`skills/ is not inside the plugin: ${skillsRoot.error.message}`);
  else {
    const set: SkillSet = { skills: [], skipped: [] };
    await readSkillsFolder(context, skillsRoot.value, { scope, plugin: name }, set);
    plugin.skills = set.skills;
    plugin.problems.push(...set.skipped.map((s) => `the skill in ${s.folder} was skipped: ${s.why}`));
  }
  const servers = await readPluginServers(context, folder);
  plugin.servers = servers.servers;
  if (servers.why !== undefined) plugin.problems.push(servers.why);
  return plugin;
}
