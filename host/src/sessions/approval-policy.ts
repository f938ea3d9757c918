import type { AllowRule } from '../store/session-store.js';
import type { ApprovalNeed } from '../tools/tool.js';
import type { ExecutionContext } from '@tether/machine';
import type { WordInFolder } from './prefix-rule.js';
import { prefixCovers, prefixProblem } from './prefix-rule.js';

/**
 * Characters that let one command line run another: `;`, `&`, `|`, backticks, `$(…)`, redirections,
 * subshells, newlines. A prefix may not hold one (what follows a prefix is held to plain words:
 * prefix-rule.ts).
 */
const SHELL_CONTROL = /[;&|`$<>()\n\r\\]/;

/**
 * Where `path` (absolute, or relative to the session folder) lies: in the session folder and
 * outside the private folders, existing or not, or outside (prefix-rule.ts, WordPlace). The
 * session's execution context answers, by real path, on the computer the session runs on.
 */
export type InFolder = WordInFolder;

/** The InFolder of a session in `cwd()` on `context`: its confined `stat`. */
export function folderPlaces(context: Pick<ExecutionContext, 'stat'>, cwd: () => string): InFolder {
  return async (path) => {
    const found = await context.stat(cwd(), path);
    if (found.ok) return 'present';
    // Not there, or a file on its way: it would lie in the folder (the check ran first).
    return found.error.code === 'not-found' || found.error.code === 'not-a-folder' ? 'absent' : 'outside';
  };
}

/**
 * Whether "allow for this session" rules already cover this action. A prefix rule checks the
 * words after its prefix with `inFolder`. No rule covers a command that brings its own variables
 * or runs in another folder than the session's (its Makefile, its package.json): the person
 * allowed the command where they saw it, as they saw it.
 */
export async function isAllowedByRules(
  rules: readonly AllowRule[],
  tool: string,
  need: ApprovalNeed,
  inFolder: InFolder,
): Promise<boolean> {
  if (ownSetting(need) !== undefined) return false;
  for (const rule of rules) {
    if (rule.tool !== tool) continue;
    if ('command' in rule) {
      if (need.command === rule.command) return true;
    } else if ('prefix' in rule) {
      // See prefix-rule.ts: a rule stored before its checks existed is held to them too.
      if (need.command !== undefined && (await prefixCovers(rule.prefix, need.command, inFolder))) return true;
    } else if ('path' in rule) {
      if (need.path === rule.path) return true;
      // A rule for the whole tool never covers a read in a hidden home entry: that asks per file.
    } else if (tool !== 'shell' && need.path === undefined) return true;
  }
  return false;
}

/**
 * The rule an "allow for this session" answer adds: for `shell`, that exact command, or the
 * prefix the person chose (which must start the command, end where one of its words ends, and
 * pass `prefixProblem`); for a read in a hidden home entry, that tool's reads of that very file or
 * folder (by real path), not of the entry around it; for other tools, the tool.
 */
export function ruleForAnswer(
  tool: string,
  need: ApprovalNeed,
  prefix: string | undefined,
): AllowRule | { error: string } {
  if (need.kind === 'plan') return { error: 'a plan is accepted once: each plan is asked for' };
  if (tool !== 'shell') {
    if (prefix !== undefined) return { error: 'a prefix applies only to shell commands' };
    return need.path !== undefined ? { tool, path: need.path } : { tool };
  }
  const setting = ownSetting(need);
  if (setting !== undefined) {
    return { error: `this command ${setting}, so it can only be allowed once: a rule would let it run otherwise` };
  }
  const command = need.command ?? need.action;
  if (prefix === undefined) return { tool: 'shell', command };
  const trimmed = prefix.trim();
  if (trimmed === '' || !command.startsWith(trimmed)) return { error: 'the prefix must be the start of the command' };
  const next = command[trimmed.length];
  if (next !== undefined && next !== ' ' && next !== '\t')
    return { error: 'the prefix must end where a word of the command ends' };
  if (SHELL_CONTROL.test(trimmed)) return { error: 'a prefix may not contain shell control characters' };
  const problem = prefixProblem(trimmed);
  return problem !== undefined ? { error: problem } : { tool: 'shell', prefix: trimmed };
}

/** What the command brings beyond its words, which no rule can cover, in words; else undefined. */
function ownSetting(need: ApprovalNeed): string | undefined {
  // Variables of the agent's choosing change what any command does (`BASH_ENV`, `PATH`).
  if (need.env !== undefined && Object.keys(need.env).length > 0) return 'brings its own environment variables';
  if (need.cwd !== undefined) return 'runs in another folder than the session folder';
  return undefined;
}
