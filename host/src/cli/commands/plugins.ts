import { visibleText } from '@tether/shared-protocol';
import { resolve } from 'node:path';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, failed, printJson, table, withClient } from '../common.js';
import { actionBlock } from '../approval-lines.js';
import { dataPaths, prepareDataDir, resolveDataDir } from '../../config/data-dir.js';
import { PLUGIN_NAME } from '../../plugins/plugin-manifest.js';
import { serverCommandLine } from '../../plugins/plugin-servers.js';
import type { PluginState } from '../../plugins/plugin-state.js';
import { loadPluginState, savePluginState, setDisabled } from '../../plugins/plugin-state.js';
import type { Plugin } from '../../plugins/plugins.js';
import { discoverPlugins } from '../../plugins/plugins.js';
import { repositoryRoot } from '../../sessions/builtin/project-instructions.js';
import { hostLocalContext } from '../../sessions/host-context.js';
import { flagOption, valueOption } from '../option.js';

const CWD_OPTION = valueOption('cwd', 'DIR', 'the session folder (default: the current folder)');

/** The plugins a session in the folder gets, read on this computer as a session here reads them. */
async function pluginsHere(
  context: CommandContext,
  name: string,
): Promise<{ root: string; plugins: Plugin[]; state: PluginState; statePath: string } | undefined> {
  const statePath = dataPaths(resolveDataDir(stringOption(context.args, 'data-dir'), context.env)).plugins;
  const state = loadPluginState(statePath);
  if (!state.ok) {
    context.stderr.write(`tether ${name}: ${visibleText(state.error.message)}\n`);
    return undefined;
  }
  const exec = hostLocalContext(context.env);
  const folder = await exec.checkFolder(resolve(stringOption(context.args, 'cwd') ?? process.cwd()));
  if (!folder.ok) {
    context.stderr.write(`tether ${name}: ${visibleText(folder.error.message)}\n`);
    return undefined;
  }
  const root = await repositoryRoot(exec, folder.value);
  const plugins = await discoverPlugins(exec, root, exec.home, state.value.disabled);
  return { root, plugins, state: state.value, statePath };
}

export const pluginsCommand: Command = {
  path: ['plugins'],
  summary: "list the Agent Plugins a session of Tether's own loop in a folder gets, with their status and why",
  details:
    "Plugins are folders with a plugin.json in <repository>/.agents/plugins/ and ~/.agents/plugins/ (the project wins a name both have). A project's plugins load only once its folder is trusted (`tether plugins allow`, `tether trust`, or the approval its first session raises), pinned to their content.",
  options: [CWD_OPTION, DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: async (context) => {
    const here = await pluginsHere(context, 'plugins');
    if (!here) return Exit.Error;
    if (flag(context.args, 'json')) {
      // Each server as its command line: a config's header values may be tokens.
      const plugins = here.plugins.map((p) => ({
        ...p,
        servers: p.servers.map((s) => ({
          name: s.name,
          ...(s.config ? { transport: s.config.transport, command: serverCommandLine(s.config) } : {}),
          ...(s.why !== undefined ? { why: s.why } : {}),
        })),
      }));
      printJson(context, { root: here.root, plugins });
      return Exit.Ok;
    }
    if (here.plugins.length === 0) {
      context.stdout.write('No plugins.\n');
      return Exit.Ok;
    }
    const rows = here.plugins.map((p) => [
      visibleText(p.name),
      p.scope,
      p.status,
      String(p.skills.length),
      String(p.servers.filter((s) => s.config).length),
      visibleText(p.why ?? p.description ?? '', { maxLength: 80 }),
    ]);
    context.stdout.write(table([['NAME', 'FROM', 'STATUS', 'SKILLS', 'SERVERS', 'WHY / DESCRIPTION'], ...rows]));
    for (const p of here.plugins) {
      for (const problem of p.problems) context.stdout.write(`${visibleText(p.name)}: ${visibleText(problem)}\n`);
      for (const s of p.servers) {
        const label = `${visibleText(p.name)}: MCP server ${visibleText(s.name)}`;
        if (!s.config) {
          context.stdout.write(`${label} is disabled: ${visibleText(s.why ?? '')}\n`);
          continue;
        }
        if (p.status !== 'enabled') continue;
        const command = serverCommandLine(s.config);
        const trusted = p.scope === 'project' ? ' (in a trusted folder only)' : '';
        context.stdout.write(`${label}${trusted}: ${visibleText(command)}\n`);
      }
    }
    return Exit.Ok;
  },
};

function toggle(disabled: boolean): Command {
  const word = disabled ? 'disable' : 'enable';
  return {
    path: ['plugins', word],
    usage: 'NAME',
    summary: disabled
      ? 'turn a plugin off: its skills and MCP servers are left out of new runs'
      : 'turn a plugin disabled with `tether plugins disable` back on',
    details: 'By the name in its plugin.json, wherever it is found. Kept in <data-dir>/plugins.json.',
    options: [DATA_DIR_OPTION],
    arity: [1, 1],
    run: (context) => {
      const name = context.args.positionals[0]!;
      if (!PLUGIN_NAME.test(name)) {
        context.stderr.write(`tether plugins ${word}: ${visibleText(name)} is not a plugin name\n`);
        return Promise.resolve(Exit.Usage);
      }
      const dir = resolveDataDir(stringOption(context.args, 'data-dir'), context.env);
      const prepared = prepareDataDir(dir);
      const state = prepared.ok ? loadPluginState(dataPaths(dir).plugins) : prepared;
      if (!state.ok) {
        context.stderr.write(`tether plugins ${word}: ${visibleText(state.error.message)}\n`);
        return Promise.resolve(Exit.Error);
      }
      savePluginState(dataPaths(dir).plugins, setDisabled(state.value, name, disabled));
      context.stdout.write(
        `Plugin ${name} ${disabled ? 'disabled' : 'enabled'}; new runs ${disabled ? 'leave it out' : 'use it'}.\n`,
      );
      return Promise.resolve(Exit.Ok);
    },
  };
}

export const pluginsEnableCommand = toggle(false);
export const pluginsDisableCommand = toggle(true);

export const pluginsAllowCommand: Command = {
  path: ['plugins', 'allow'],
  summary:
    "trust a repository's own skills and plugins (with their MCP servers) for Tether's own loop, as they are now",
  details:
    "Shows each plugin, each server's exact command line and every file it is pinned to; --yes trusts exactly that (folder trust for Tether's own loop, as `tether trust` gives it). A changed file, program, argument, environment value or URL asks again. --revoke forgets it. Needs the host running.",
  options: [
    CWD_OPTION,
    DATA_DIR_OPTION,
    flagOption('yes', 'trust what is shown'),
    flagOption('revoke', "forget what was trusted for the repository's own loop"),
  ],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const folder = resolve(stringOption(context.args, 'cwd') ?? process.cwd());
      const shown = await client.call('trust.show', { folder });
      if (failed(context, shown)) return Exit.Error;
      const config = shown.value.configs.find((c) => c.family === 'tether')!;
      const root = config.folder;
      if (flag(context.args, 'revoke')) {
        const revoked = await client.call('trust.revoke', { folder: root, family: 'tether' });
        if (failed(context, revoked)) return Exit.Error;
        context.stdout.write(`The skills and plugins of ${visibleText(root)} are not trusted any more.\n`);
        return Exit.Ok;
      }
      if (!config.present) {
        context.stdout.write(`${visibleText(root)} has no skills or plugins of its own.\n`);
        return Exit.Ok;
      }
      context.stdout.write(`${actionBlock(config.action, '  ')}\n`);
      if (config.untrustable !== undefined) {
        context.stderr.write(`tether plugins allow: ${visibleText(config.untrustable)}\n`);
        return Exit.Error;
      }
      if (config.trusted) {
        context.stdout.write('Trusted as it is.\n');
        return Exit.Ok;
      }
      if (!flag(context.args, 'yes')) {
        context.stdout.write(`Read it; to trust exactly this, run: tether plugins allow --cwd ${root} --yes\n`);
        return Exit.Ok;
      }
      const set = await client.call('trust.set', {
        folder: shown.value.folder,
        fingerprints: [{ family: 'tether', fingerprint: config.fingerprint }],
      });
      if (failed(context, set)) return Exit.Error;
      context.stdout.write(
        `Trusted for Tether's own loop in sessions in ${visibleText(root)}, as shown, until it changes.\n`,
      );
      return Exit.Ok;
    }),
};
