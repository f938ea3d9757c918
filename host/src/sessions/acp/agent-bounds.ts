import type { ExecutionContext } from '@tether/machine';
import { PRIVATE_HOME_PATHS } from '@tether/machine';
import { posix } from 'node:path';
import type { AgentFamily } from './agent-family.js';
import { claudeCodeMeta, MAX_HIDDEN_ENTRIES } from './claude-code-bounds.js';

/**
 * How an agent Tether starts is told what it may load and where its own tools may go, per
 * adapter (docs/agents.md, "What each agent's own tools reach"):
 *
 * - Claude Code: `_meta.claudeCode.options` on `session/new`, `load` and `resume`
 *   (claude-code-bounds.ts): its setting sources, and deny rules for every private path.
 * - Codex: a `-c` override at start marking the session folder untrusted in Codex's own terms
 *   until Tether trusts it, so Codex leaves its `.codex/` alone whatever its own list says.
 * - Gemini CLI: `GEMINI_CLI_TRUST_WORKSPACE=false` until Tether trusts the folder, which Gemini
 *   reads before its own trusted-folders list.
 *
 * Once Tether trusts a folder it tells Codex and Gemini nothing more: their own trust lists still
 * decide, as at the computer. Any other agent is told nothing (`other`).
 */

export interface AgentBounds {
  /** Added after the agent's own arguments when its process starts. */
  args: string[];
  /** Set in its environment, over its configured `env`. */
  env: Record<string, string>;
  /** `_meta` for `session/new`, `session/load` and `session/resume`. */
  meta?: Record<string, unknown>;
}

export interface BoundsInput {
  family: AgentFamily;
  /** Whether the folder's own configuration may load. */
  trusted: boolean;
  context: ExecutionContext;
  /** The session folder, a real path. */
  cwd: string;
}

export async function agentBounds(input: BoundsInput): Promise<AgentBounds> {
  const { family, trusted, context, cwd } = input;
  switch (family) {
    case 'claude-code': {
      const home = context.home;
      return {
        args: [],
        env: {},
        meta: claudeCodeMeta({
          trusted,
          privates: placePrivates(context),
          home,
          cwd,
          hiddenHomeEntries: home !== undefined ? await hiddenEntries(context, home, cwd) : [],
        }),
      };
    }
    case 'codex':
      return { args: trusted ? [] : ['-c', codexUntrusted(cwd)], env: {} };
    case 'gemini':
      return { args: [], env: trusted ? {} : { GEMINI_CLI_TRUST_WORKSPACE: 'false' } };
    case 'other':
      return { args: [], env: {} };
  }
}

/**
 * The private paths of the place the agent runs on: the place's own list where it knows it (this
 * computer), else the list every machine keeps, under the place's home folder.
 */
export function placePrivates(context: ExecutionContext): readonly string[] {
  if (context.privates !== undefined) return context.privates;
  const home = context.home;
  return home === undefined ? [] : PRIVATE_HOME_PATHS.map((entry) => posix.join(home, entry.path));
}

/** Codex's `-c` override: the session folder as an untrusted project, which keeps its `.codex/` from loading. */
export function codexUntrusted(cwd: string): string {
  return `projects={ ${JSON.stringify(cwd)} = { trust_level = "untrusted" } }`;
}

/** The home folder's hidden entries, when the session folder lies in one of them (else none are needed). */
async function hiddenEntries(context: ExecutionContext, home: string, cwd: string): Promise<string[]> {
  const prefix = home.endsWith('/') ? home : `${home}/`;
  if (!cwd.startsWith(prefix) || !cwd.slice(prefix.length).startsWith('.')) return [];
  const listed = await context.listDir(home, '.', MAX_HIDDEN_ENTRIES * 4);
  return listed.ok ? listed.value.entries.map((e) => e.name).filter((name) => name.startsWith('.')) : [];
}
