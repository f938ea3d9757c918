/**
 * What plugins give one run of the own loop: their skills, the tools of their MCP servers, and a
 * notice for everything that was left out and why. Servers run on this computer, started the
 * first time a run needs a given set and kept until the host stops (a bounded pool).
 *
 * A project's plugins load only when its folder is trusted (folder-trust.ts: `tether trust`,
 * `tether plugins allow`, or the approval its first session raises), pinned to the content of
 * every file of its plugins: a phone can start a session in any cloned repository, and cloning
 * one, or pulling into it, must not be enough to run its programs. The person's own plugins
 * (`~/.agents/plugins/`) start as configured.
 */
import type { ExecutionContext } from '@tether/machine';
import type { McpServerConfig } from '../mcp/mcp-config.js';
import { McpManager } from '../mcp/mcp-manager.js';
import type { McpNotice, McpTool } from '../mcp/types.js';
import type { Skill } from '../tools/skills.js';
import { loadPluginState } from './plugin-state.js';
import type { Plugin } from './plugins.js';
import { discoverPlugins } from './plugins.js';

/** Server sets kept running at once; the least recently used is stopped past it. */
export const MAX_RUNNING_SETS = 8;

export interface PluginRunInput {
  context: ExecutionContext;
  /** The repository root of the session folder. */
  root: string;
  /** Whether the repository's own configuration may load (its plugins, their servers), as trusted now. */
  trusted: boolean;
  /** `local` for this computer, else a machine's id: servers run only for sessions here. */
  place: string;
  /** Names of the skills the run has already (project and person): a plugin's skill of one of those names is left out. */
  skillNames: readonly string[];
}

export interface PluginRunSetup {
  skills: Skill[];
  tools: McpTool[];
  notices: string[];
}

export interface PluginRuntimeOptions {
  /** `<data-dir>/plugins.json` (plugins disabled by name). */
  statePath: string;
  /** Server failures after the start, for the host's own output. */
  onNotice?: (notice: McpNotice) => void;
  startTimeoutMs?: number;
  clientVersion?: string;
}

interface RunningSet {
  manager: Promise<McpManager>;
  /** What the start said (failures), for the run that waits on it. */
  notices: string[];
}

export class PluginRuntime {
  private readonly running = new Map<string, RunningSet>();
  private closed = false;

  constructor(private readonly options: PluginRuntimeOptions) {}

  async forRun(input: PluginRunInput): Promise<PluginRunSetup> {
    const state = loadPluginState(this.options.statePath);
    if (!state.ok) return { skills: [], tools: [], notices: [`Plugins were not loaded: ${state.error.message}.`] };
    const project = input.trusted ? input.root : undefined;
    const plugins = await discoverPlugins(input.context, project, input.context.home, state.value.disabled);
    const notices: string[] = [];
    const skills: Skill[] = [];
    const taken = new Set(input.skillNames);
    const start: { name: string; config: McpServerConfig }[] = [];
    for (const plugin of plugins) {
      if (plugin.status === 'failed') notices.push(`The plugin in ${plugin.folder} was not loaded: ${plugin.why}.`);
      if (plugin.status !== 'enabled') continue;
      for (const problem of plugin.problems) notices.push(`Plugin ${plugin.name}: ${problem}.`);
      for (const skill of plugin.skills) {
        if (taken.has(skill.name)) {
          notices.push(
            `Plugin ${plugin.name}'s skill ${skill.name} was left out: a skill of that name is used already.`,
          );
          continue;
        }
        taken.add(skill.name);
        skills.push(skill);
      }
      start.push(...serversToStart(plugin, input.place, notices));
    }
    if (start.length === 0 || this.closed) return { skills, tools: [], notices };
    const set = this.runningSet(start);
    const manager = await set.manager;
    return { skills, tools: manager.tools(), notices: [...notices, ...set.notices] };
  }

  /** Stops every server; later runs get none. */
  async close(): Promise<void> {
    this.closed = true;
    const sets = [...this.running.values()];
    this.running.clear();
    await Promise.all(sets.map(async (set) => (await set.manager).close()));
  }

  private runningSet(servers: { name: string; config: McpServerConfig }[]): RunningSet {
    const key = JSON.stringify(servers);
    const found = this.running.get(key);
    if (found) {
      // Most recently used last, so the first is the one to stop.
      this.running.delete(key);
      this.running.set(key, found);
      return found;
    }
    while (this.running.size >= MAX_RUNNING_SETS) {
      const [oldest, set] = this.running.entries().next().value!;
      this.running.delete(oldest);
      void set.manager.then((manager) => manager.close());
    }
    const notices: string[] = [];
    let started = false;
    const manager = McpManager.start(
      { servers },
      {
        onNotice: (notice) => {
          if (!started && notice.level !== 'info') notices.push(notice.text);
          else this.options.onNotice?.(notice);
        },
        ...(this.options.startTimeoutMs !== undefined ? { startTimeoutMs: this.options.startTimeoutMs } : {}),
        ...(this.options.clientVersion !== undefined ? { clientVersion: this.options.clientVersion } : {}),
      },
    ).then((made) => {
      started = true;
      return made;
    });
    const set = { manager, notices };
    this.running.set(key, set);
    return set;
  }
}

/** The usable servers of an enabled plugin, for a session on this computer (a machine's get none). */
function serversToStart(plugin: Plugin, place: string, notices: string[]): { name: string; config: McpServerConfig }[] {
  const start: { name: string; config: McpServerConfig }[] = [];
  for (const server of plugin.servers) {
    const label = `Plugin ${plugin.name}'s MCP server ${server.name}`;
    if (server.config === undefined) notices.push(`${label} is disabled: ${server.why ?? 'its entry is unusable'}.`);
    else if (place !== 'local')
      notices.push(`${label} was not started: a plugin's MCP servers run only for sessions on the host's computer.`);
    else start.push({ name: `${plugin.name}.${server.name}`, config: server.config });
  }
  return start;
}
