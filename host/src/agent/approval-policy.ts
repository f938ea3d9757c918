import type { AllowRule } from '../store/session-store.js';
import type { ApprovalNeed } from '../tools/tool.js';
import { prefixCovers, prefixProblem } from './prefix-rule.js';

/**
 * Characters that let one command line run another: `;`, `&`, `|`, backticks, `$(…)`, redirections,
 * subshells, newlines. A prefix rule never covers a command whose remainder holds one, so that
 * allowing `npm test` does not allow `npm test && rm -rf ~`.
 */
const SHELL_CONTROL = /[;&|`$<>()\n\r\\]/;

/** Whether "allow for this session" rules already cover this action. */
export function isAllowedByRules(rules: readonly AllowRule[], tool: string, need: ApprovalNeed): boolean {
  // Variables of the agent's choosing change what any command does (`BASH_ENV`, `PATH`).
  if (bringsEnv(need)) return false;
  return rules.some((rule) => {
    if (rule.tool !== tool) return false;
    if ('command' in rule) return need.command === rule.command;
    // See prefix-rule.ts: a rule stored before its checks existed is held to them too.
    if ('prefix' in rule) return need.command !== undefined && prefixCovers(rule.prefix, need.command, SHELL_CONTROL);
    return tool !== 'shell';
  });
}

/**
 * The rule an "allow for this session" answer adds: for `shell`, that exact command, or the
 * prefix the person chose (which must start the command, end where one of its words ends, and
 * pass `prefixProblem`); for other tools, the tool.
 */
export function ruleForAnswer(
  tool: string,
  need: ApprovalNeed,
  prefix: string | undefined,
): AllowRule | { error: string } {
  if (tool !== 'shell') {
    return prefix === undefined ? { tool } : { error: 'a prefix applies only to shell commands' };
  }
  if (bringsEnv(need)) {
    return {
      error:
        'this command brings its own environment variables, so it can only be allowed once: a rule would let the same command run with other values',
    };
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

function bringsEnv(need: ApprovalNeed): boolean {
  return need.env !== undefined && Object.keys(need.env).length > 0;
}
