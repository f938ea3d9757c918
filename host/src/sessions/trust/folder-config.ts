import type { TrustFamily } from '@tether/shared-protocol';
import { TRUST_FAMILY_NAMES } from '@tether/shared-protocol';
import type { ExecutionContext } from '@tether/machine';
import { claudeCodeConfig } from './claude-config.js';
import { codexConfig, geminiConfig } from './codex-gemini-config.js';
import type { ConfigFile } from './config-files.js';
import { pinnedLines, sha256 } from './config-files.js';
import { ownLoopConfig } from './own-loop-config.js';

/**
 * A folder's own agent configuration, per agent that would load it: what it runs and sets, the
 * files it is pinned to, and what could not be read whole. Trust is given to exactly this (its
 * fingerprint); any change to a pinned file, or to what a shown program resolves to, is another
 * configuration and asks again.
 */

export type { TrustFamily } from '@tether/shared-protocol';
export const TRUST_FAMILIES = TRUST_FAMILY_NAMES;

export const FAMILY_TITLES: Record<TrustFamily, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  tether: "Tether's own loop",
};

export interface FolderConfig {
  family: TrustFamily;
  /** Where the configuration is trusted: the session folder, or for the own loop its repository root (real paths). */
  folder: string;
  /** What it would run and take, one line each. */
  lines: string[];
  files: ConfigFile[];
  /** Parts that could not be read whole (a link out of the folder, a file too large): not trustable. */
  unpinnable: string[];
}

export interface ReadConfigInput {
  context: ExecutionContext;
  /** The session folder, a real path. */
  folder: string;
  /** Its repository root (the folder itself outside a repository). */
  root: string;
  env: NodeJS.ProcessEnv;
}

export async function readFolderConfig(input: ReadConfigInput, family: TrustFamily): Promise<FolderConfig> {
  const { context, folder, root } = input;
  const read =
    family === 'claude-code'
      ? await claudeCodeConfig(context, folder)
      : family === 'codex'
        ? await codexConfig(context, root, folder)
        : family === 'gemini'
          ? await geminiConfig(context, folder)
          : await ownLoopConfig(context, root, input.env);
  // The own loop reads a repository's `.agents/` at its root, whichever folder of it the session is in.
  const where = family === 'tether' ? root : folder;
  return { family, folder: where, lines: read.lines, files: read.files.files, unpinnable: read.files.unpinnable };
}

/** Whether there is anything to trust: no configuration of its own needs no question. */
export function hasConfig(config: FolderConfig): boolean {
  return config.files.length > 0 || config.unpinnable.length > 0;
}

/** What trust is pinned to: the agent, the folder, what is shown, and every file's digest. */
export function fingerprint(config: FolderConfig): string {
  return sha256(
    JSON.stringify({
      family: config.family,
      folder: config.folder,
      lines: config.lines,
      files: config.files.map((f) => [f.path, f.sha256]),
    }),
  );
}

/** The approval's text: whose configuration, where, what it runs, what it is pinned to, and what "no" means. */
export function trustAction(config: FolderConfig): string {
  const title = FAMILY_TITLES[config.family];
  return [
    `Trust this folder's own configuration for ${title}? ${config.folder}`,
    `${title} would run and take, as you:`,
    ...(config.lines.length > 0 ? config.lines.map((l) => `  ${l}`) : ['  (nothing but the files below)']),
    'Pinned to these files (any change asks again):',
    ...pinnedLines(config.files),
    `Not trusted, ${title} ${config.family === 'tether' ? 'runs without the project’s skills and plugins' : 'starts with your user-level settings only'}.`,
  ].join('\n');
}

/** Why a configuration cannot be trusted as it is, or undefined when it can. */
export function untrustable(config: FolderConfig): string | undefined {
  return config.unpinnable.length > 0
    ? `part of it cannot be read whole, so it cannot be shown or pinned: ${config.unpinnable.join('; ')}`
    : undefined;
}
