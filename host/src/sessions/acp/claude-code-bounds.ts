import { posix } from 'node:path';

/**
 * What Tether tells Claude Code (through Zed's adapter: `session/new`'s
 * `_meta.claudeCode.options`, spread into the Claude Agent SDK's options) so that its own tools,
 * which run inside it and never through Tether's client, keep away from what Tether keeps from
 * every session, and so that a folder's own configuration loads only once the folder is trusted.
 *
 * - `settingSources`: `user` only until the folder is trusted (no `.claude/settings*.json`, no
 *   hooks, no `.mcp.json`, no CLAUDE.md or project commands, agents and skills); with `project`
 *   and `local` once it is.
 * - `extraArgs.settings`: the CLI's `--settings`, a settings layer of its own that project
 *   settings cannot undo (a deny rule wins over any allow). It denies `Read` and `Edit` of every
 *   private path, and of every hidden entry of the home folder other than the one the session
 *   works in: Claude Code applies `Read` rules to Grep and Glob too, and `Edit` rules to every
 *   tool that writes (NotebookEdit). Reading a hidden entry still works through Tether's client
 *   (`mcp__acp__Read`), which asks.
 */

/** Hidden home entries named one by one at most; past it the session's own entry goes unlisted. */
export const MAX_HIDDEN_ENTRIES = 500;

export interface ClaudeCodeBoundsInput {
  /** Whether the folder's own configuration may load. */
  trusted: boolean;
  /** Real paths no tool may reach (privatePaths on the place the agent runs). */
  privates: readonly string[];
  /** The home folder as a real path, when known. */
  home?: string | undefined;
  /** The session folder as a real path. */
  cwd: string;
  /**
   * The names of the home folder's hidden entries, needed only when the session folder lies in
   * one of them (that one stays reachable, so the others are named one by one).
   */
  hiddenHomeEntries?: readonly string[];
}

/** The `_meta` for Zed's Claude Code adapter's `session/new`, `session/load` and `session/resume`. */
export function claudeCodeMeta(input: ClaudeCodeBoundsInput): Record<string, unknown> {
  const settings = { permissions: { deny: claudeCodeDenyRules(input) } };
  return {
    claudeCode: {
      options: {
        settingSources: input.trusted ? ['user', 'project', 'local'] : ['user'],
        extraArgs: { settings: JSON.stringify(settings) },
      },
    },
  };
}

/** `Read(…)` and `Edit(…)` deny rules for every private path and every hidden home entry but the session's. */
export function claudeCodeDenyRules(input: ClaudeCodeBoundsInput): string[] {
  const paths = new Set(input.privates);
  const { home, cwd } = input;
  if (home !== undefined && home !== '/') {
    const chosen = hiddenEntryOf(cwd, home);
    if (chosen === undefined) paths.add(posix.join(home, '.*'));
    else {
      for (const name of (input.hiddenHomeEntries ?? []).slice(0, MAX_HIDDEN_ENTRIES)) {
        if (name.startsWith('.') && name !== '.' && name !== '..' && name !== chosen) paths.add(posix.join(home, name));
      }
    }
  }
  const rules: string[] = [];
  for (const path of paths) {
    // `//` starts an absolute path in Claude Code's rules; the path itself, and all under it.
    const pattern = `/${escapeGlob(path)}`;
    for (const tool of ['Read', 'Edit']) rules.push(`${tool}(${pattern})`, `${tool}(${pattern}/**)`);
  }
  return rules;
}

/** The hidden entry of `home` that `path` lies in (`.config`), if any. */
function hiddenEntryOf(path: string, home: string): string | undefined {
  const prefix = home.endsWith('/') ? home : `${home}/`;
  if (!path.startsWith(prefix)) return undefined;
  const first = path.slice(prefix.length).split('/')[0] ?? '';
  return first.startsWith('.') ? first : undefined;
}

/** A path as a gitignore-style pattern matching only itself: its glob characters escaped. */
function escapeGlob(path: string): string {
  // The trailing `.*` of the home pattern is meant as a glob; nothing else is.
  const glob = path.endsWith('/.*') ? '/.*' : '';
  const literal = glob ? path.slice(0, -glob.length) : path;
  return literal.replace(/[\\*?[\]{}!]/g, (c) => `\\${c}`) + glob;
}
