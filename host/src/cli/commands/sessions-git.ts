import type { GitStatus, GitWrite } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, failed, printJson, withClient } from '../common.js';
import { flagOption, valueOption } from '../option.js';

const ACTIONS = 'status|diff FILE|stage FILE…|unstage FILE…|commit --message MSG|push [--force-with-lease]|pr';

/** `tether sessions git ID …`: the session folder's repository, as the phone's Git panel has it. */
export const sessionsGitCommand: Command = {
  path: ['sessions', 'git'],
  usage: `ID ${ACTIONS}`,
  summary: "git in a session's folder: status, a file's diff, stage, unstage, commit, push, pull request",
  details: [
    "Every write runs the real git where the session runs, and its command line goes into the session's transcript.",
    'push goes to the branch upstream (or origin, then tracked). --force-with-lease replaces what the remote',
    'holds if it is still what this clone last saw: commits of the branch that are not here are dropped from the remote.',
    "pr opens a pull request with gh when it is installed and signed in, else prints the remote's page for one.",
  ].join('\n'),
  options: [
    DATA_DIR_OPTION,
    JSON_OPTION,
    valueOption('message', 'MSG', 'commit: the commit message'),
    flagOption('staged', 'diff: the staged change rather than the unstaged one'),
    flagOption('force-with-lease', 'push: replace the remote branch (see above)'),
  ],
  arity: [2, 1 + 500],
  run: (context) =>
    withClient(context, async (client) => {
      const [id, action, ...rest] = context.args.positionals as [string, string, ...string[]];
      const usage = (why: string) => {
        context.stderr.write(`tether: ${why}\nusage: tether sessions git ID ${ACTIONS}\n`);
        return Exit.Usage;
      };
      const wrote = (result: Awaited<ReturnType<typeof client.call<'git.stage'>>>) => {
        if (failed(context, result)) return Exit.Error;
        if (flag(context.args, 'json')) printJson(context, result.value);
        else printWrite(context, result.value);
        return Exit.Ok;
      };
      switch (action) {
        case 'status': {
          const result = await client.call('git.status', { id });
          if (failed(context, result)) return Exit.Error;
          if (flag(context.args, 'json')) printJson(context, result.value);
          else context.stdout.write(statusText(result.value));
          return Exit.Ok;
        }
        case 'diff': {
          if (rest.length !== 1) return usage('diff takes one file');
          const result = await client.call('git.diff', { id, path: rest[0]!, staged: flag(context.args, 'staged') });
          if (failed(context, result)) return Exit.Error;
          context.stdout.write(visibleText(result.value.diff, { multiline: true }));
          if (result.value.truncated) context.stdout.write('\n… (cut: the diff is longer)\n');
          return Exit.Ok;
        }
        case 'stage':
        case 'unstage':
          if (rest.length === 0) return usage(`${action} takes one or more files`);
          return wrote(await client.call(action === 'stage' ? 'git.stage' : 'git.unstage', { id, paths: rest }));
        case 'commit': {
          const message = stringOption(context.args, 'message') ?? (rest.length === 1 ? rest[0] : undefined);
          if (message === undefined || rest.length > 1) return usage('commit takes --message MSG');
          return wrote(await client.call('git.commit', { id, message }));
        }
        case 'push':
          if (rest.length > 0) return usage('push takes no files');
          return wrote(await client.call('git.push', { id, forceWithLease: flag(context.args, 'force-with-lease') }));
        case 'pr': {
          const result = await client.call('git.pullRequest', { id });
          if (failed(context, result)) return Exit.Error;
          if (flag(context.args, 'json')) printJson(context, result.value);
          else {
            const pr = result.value;
            if (pr.reason) context.stdout.write(`${visibleText(pr.reason)}\n`);
            if (pr.url) context.stdout.write(`${pr.via === 'gh' ? 'Opened' : 'Open one at'}: ${visibleText(pr.url)}\n`);
          }
          return result.value.url ? Exit.Ok : Exit.Error;
        }
        default:
          return usage(`unknown git action ${visibleText(action)}`);
      }
    }),
};

function printWrite(context: CommandContext, write: GitWrite): void {
  context.stdout.write(`$ ${visibleText(write.command)}\n`);
  if (write.output.trim()) context.stdout.write(`${visibleText(write.output.trim(), { multiline: true })}\n`);
  context.stdout.write(statusText(write.status));
}

/** Status as `git status --short` says it, with the branch line first; names escaped. */
export function statusText(status: GitStatus): string {
  const branch = status.branch === undefined ? 'HEAD detached' : visibleText(status.branch);
  const upstream = status.upstream
    ? ` → ${visibleText(status.upstream)} (ahead ${status.ahead}, behind ${status.behind})`
    : ' (no upstream)';
  const lines = status.files.map((f) => {
    const name = f.from ? `${visibleText(f.from)} → ${visibleText(f.path)}` : visibleText(f.path);
    return `${f.index === '.' ? ' ' : f.index}${f.worktree === '.' ? ' ' : f.worktree} ${name}`;
  });
  if (lines.length === 0) lines.push('nothing changed');
  if (status.truncated) lines.push('… more files not listed');
  return `${branch}${upstream}\n${lines.join('\n')}\n`;
}
