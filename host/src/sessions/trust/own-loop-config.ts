import type { ExecutionContext } from '@tether/machine';
import { serverCommandLine } from '../../plugins/plugin-servers.js';
import { discoverPlugins } from '../../plugins/plugins.js';
import { findOnPath } from '../acp/agent-catalog.js';
import { discoverSkills } from '../../tools/skills.js';
import type { ConfigFiles } from './config-files.js';
import { readConfigTree } from './config-files.js';

/**
 * What Tether's own loop loads from a repository: its Agent Skills (`.agents/skills/`) and Agent
 * Plugins (`.agents/plugins/`, with their skills and MCP servers). Every file of both folders is
 * pinned (a plugin's `node_modules` and `.git` aside: installed, not written in the repository),
 * so a server's program, the files its arguments name and whatever they load from the plugin are
 * all part of what is trusted; a server run by a program on PATH shows which program that is.
 */

/** Folders of a plugin left out of what is pinned. */
const NOT_PINNED = ['node_modules', '.git'];

export async function ownLoopConfig(
  context: ExecutionContext,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<{ lines: string[]; files: ConfigFiles }> {
  const files: ConfigFiles = { files: [], unpinnable: [] };
  await readConfigTree(context, root, '.agents/skills', files);
  await readConfigTree(context, root, '.agents/plugins', files, NOT_PINNED);
  if (files.files.length === 0 && files.unpinnable.length === 0) return { lines: [], files };
  const lines: string[] = [];
  const skills = await discoverSkills(context, root, undefined);
  for (const skill of skills.skills) lines.push(`skill ${skill.name} (${skill.folder}): ${skill.description}`);
  for (const plugin of await discoverPlugins(context, root, undefined, [])) {
    const version = plugin.version !== undefined ? ` ${plugin.version}` : '';
    lines.push(
      `plugin ${plugin.name}${version} (${plugin.folder})${plugin.why !== undefined ? `: ${plugin.why}` : ''}`,
    );
    for (const skill of plugin.skills) lines.push(`  skill ${skill.name}: ${skill.description}`);
    for (const server of plugin.servers) {
      if (server.config === undefined) {
        lines.push(`  MCP server ${server.name}: disabled, ${server.why ?? 'its entry is unusable'}`);
        continue;
      }
      const config = server.config;
      const program =
        config.transport === 'stdio' && !config.command.includes('/')
          ? ` (${config.command} is ${(context.place === 'local' && findOnPath(config.command, env)) || 'not found on PATH'})`
          : '';
      lines.push(`  MCP server ${server.name}: ${serverCommandLine(config)}${program}`);
    }
  }
  return { lines, files };
}
