import type { AllowRule } from '../store/session-store.js';
import type { ApprovalNeed } from '../tools/tool.js';

/**
 * Characters that let one command line run another: `;`, `&`, `|`, backticks, `$(…)`, redirections,
 * subshells, newlines. A prefix rule never covers a command whose remainder holds one, so that
 * allowing `npm test` does not allow `npm test && rm -rf ~`.
 */
const SHELL_CONTROL = /[;&|`$<>()\n\r\\]/;

/** Whether "allow for this session" rules already cover this action. */
export function isAllowedByRules(rules: readonly AllowRule[], tool: string, need: ApprovalNeed): boolean {
  return rules.some((rule) => {
    if (rule.tool !== tool) return false;
    if ('command' in rule) return need.command === rule.command;
    if ('prefix' in rule) {
      const command = need.command;
      if (command === undefined) return false;
      if (command === rule.prefix) return true;
      if (!command.startsWith(`${rule.prefix} `)) return false;
      return !SHELL_CONTROL.test(command.slice(rule.prefix.length));
    }
    return tool !== 'shell';
  });
}

/**
 * The rule an "allow for this session" answer adds: for `shell`, that exact command, or the
 * prefix the person chose (which must start the command); for other tools, the tool.
 */
export function ruleForAnswer(
  tool: string,
  need: ApprovalNeed,
  prefix: string | undefined,
): AllowRule | { error: string } {
  if (tool !== 'shell') {
    return prefix === undefined ? { tool } : { error: 'a prefix applies only to shell commands' };
  }
  const command = need.command ?? need.action;
  if (prefix === undefined) return { tool: 'shell', command };
  const trimmed = prefix.trim();
  if (trimmed === '' || !command.startsWith(trimmed)) return { error: 'the prefix must be the start of the command' };
  if (SHELL_CONTROL.test(trimmed)) return { error: 'a prefix may not contain shell control characters' };
  return { tool: 'shell', prefix: trimmed };
}
