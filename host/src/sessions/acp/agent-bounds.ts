import type { ExecutionContext } from '@tether/machine';
import { PRIVATE_HOME_PATHS } from '@tether/machine';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
      return {
        args: [
          ...(trusted ? [] : ['-c', codexUntrusted(cwd)]),
          ...codexPermissions(existing(context, placePrivates(context)), codexWritable(context, cwd)),
        ],
        env: {},
      };
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

/**
 * The paths that exist now, where the place is this computer (a sandbox mounts over each, which
 * fails for one that is not there); a machine's are all given.
 */
function existing(context: ExecutionContext, paths: readonly string[]): string[] {
  return context.place === 'local' ? paths.filter((path) => existsSync(path)) : [...paths];
}

/** Where Codex's sandbox lets an allowed command write: the home folder, the session folder, the temporary folders. */
function codexWritable(context: ExecutionContext, cwd: string): string[] {
  const folders = [context.home, cwd, '/tmp', context.place === 'local' ? tmpdir() : undefined];
  return existing(context, [...new Set(folders.filter((f): f is string => f !== undefined))]);
}

/** Codex's `-c` override: the session folder as an untrusted project, which keeps its `.codex/` from loading. */
export function codexUntrusted(cwd: string): string {
  return `projects={ ${JSON.stringify(cwd)} = { trust_level = "untrusted" } }`;
}

/** The name of the permission profile Tether gives Codex. */
export const CODEX_PROFILE = 'tether';

/**
 * Codex's own sandbox, told to read nothing private. A permission profile (Codex's
 * `[permissions]`, selected by `default_permissions`) reads everything but the private paths
 * (`none`) and writes only in the home folder, the session folder and the temporary folders, with
 * the network on. Deny entries bind every command Codex runs, escalated or not, so Codex is also
 * told to ask before every command it does not know to be read-only (`approval_policy =
 * "untrusted"`): `cat ~/.ssh/id_ed25519`, which it runs without asking, reads nothing, and
 * anything that writes asks first. (Making `/` writable would cover the sandbox's own `/dev`, and
 * `> /dev/null` would fail.)
 */
export function codexPermissions(privates: readonly string[], writable: readonly string[]): string[] {
  const entries = [
    '":root" = "read"',
    ...writable.map((path) => `${JSON.stringify(path)} = "write"`),
    ...privates.map((path) => `${JSON.stringify(path)} = "none"`),
  ];
  return [
    '-c',
    'approval_policy="untrusted"',
    '-c',
    `default_permissions=${JSON.stringify(CODEX_PROFILE)}`,
    '-c',
    `permissions.${CODEX_PROFILE}={ filesystem = { ${entries.join(', ')} }, network = { enabled = true } }`,
  ];
}

/** The home folder's hidden entries, when the session folder lies in one of them (else none are needed). */
async function hiddenEntries(context: ExecutionContext, home: string, cwd: string): Promise<string[]> {
  const prefix = home.endsWith('/') ? home : `${home}/`;
  if (!cwd.startsWith(prefix) || !cwd.slice(prefix.length).startsWith('.')) return [];
  const listed = await context.listDir(home, '.', MAX_HIDDEN_ENTRIES * 4);
  return listed.ok ? listed.value.entries.map((e) => e.name).filter((name) => name.startsWith('.')) : [];
}
