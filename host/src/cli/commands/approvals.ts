import type { Decision } from '@tether/shared-protocol';
import { prefixRuleText, visibleText } from '@tether/shared-protocol';
import { flag, stringOption } from '../args.js';
import { actionBlock, approvalHeader } from '../approval-lines.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, withClient } from '../common.js';
import { flagOption, valueOption } from '../option.js';

export const approvalsCommand: Command = {
  path: ['approvals'],
  usage: '[ID]',
  summary: 'list approvals waiting for an answer (or just one), each with its complete action',
  details: 'Every line of an action is shown; characters that could hide text are shown as marks like ⟨ESC⟩.',
  options: [DATA_DIR_OPTION, JSON_OPTION, valueOption('session', 'ID', 'only this session')],
  arity: [0, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const session = stringOption(context.args, 'session');
      const only = context.args.positionals[0];
      const result = await client.call('approvals.list', session !== undefined ? { sessionId: session } : {});
      if (failed(context, result)) return Exit.Error;
      const approvals = result.value.approvals.filter((a) => only === undefined || a.id === only);
      if (only !== undefined && approvals.length === 0) {
        context.stderr.write(`tether approvals: nothing with id ${visibleText(only)} is waiting for an answer\n`);
        return Exit.Error;
      }
      if (flag(context.args, 'json')) printJson(context, only !== undefined ? approvals[0] : approvals);
      else if (approvals.length === 0) context.stdout.write('Nothing is waiting for approval.\n');
      else {
        for (const a of approvals) {
          context.stdout.write(`${approvalHeader(a)}, ${ago(a.createdAt)}\n${actionBlock(a.action, '  ')}\n\n`);
        }
        context.stdout.write('Answer: tether approve ID allow|deny [--for-session | --always] [--note TEXT]\n');
      }
      return Exit.Ok;
    }),
};

export const approveCommand: Command = {
  path: ['approve'],
  usage: 'ID allow|deny',
  summary: 'answer an approval (the first answer from anywhere wins)',
  options: [
    DATA_DIR_OPTION,
    flagOption('for-session', 'allow this for the rest of the session (for shell: this command)'),
    flagOption(
      'always',
      "pick the agent's own answer that outlives this session (every session of this agent, in Tether or not), where the approval offers one",
    ),
    valueOption(
      'prefix',
      'TEXT',
      'with allow on a shell command: for the rest of the session allow TEXT (a program and at least one argument) alone or followed only by plain words in the session folder (no options, no shell syntax)',
    ),
    valueOption('note', 'TEXT', 'a note for the model (with deny: what to do instead)'),
    JSON_OPTION,
  ],
  arity: [2, 2],
  run: (context) => {
    const [id, answer] = context.args.positionals as [string, string];
    if (answer !== 'allow' && answer !== 'deny') {
      context.stderr.write('tether approve: answer allow or deny\n');
      return Promise.resolve(Exit.Usage);
    }
    const forSession = flag(context.args, 'for-session');
    const always = flag(context.args, 'always');
    const prefix = stringOption(context.args, 'prefix');
    if ((forSession || always || prefix !== undefined) && answer === 'deny') {
      context.stderr.write('tether approve: --for-session, --always and --prefix go with allow\n');
      return Promise.resolve(Exit.Usage);
    }
    if (always && (forSession || prefix !== undefined)) {
      context.stderr.write('tether approve: --always is the agent’s own answer: not with --for-session or --prefix\n');
      return Promise.resolve(Exit.Usage);
    }
    const decision: Decision =
      answer === 'deny'
        ? 'deny'
        : always
          ? 'allow-always'
          : forSession || prefix !== undefined
            ? 'allow-session'
            : 'allow-once';
    const note = stringOption(context.args, 'note');
    return withClient(context, async (client) => {
      const result = await client.call('approvals.answer', {
        id,
        decision,
        ...(note !== undefined ? { note } : {}),
        ...(prefix !== undefined ? { prefix } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      const approval = result.value.approval;
      if (flag(context.args, 'json')) printJson(context, approval);
      else if (approval.prefix !== undefined)
        context.stdout.write(
          `Allowed. For the rest of this session, ${prefixRuleText(approval.prefix)} runs without asking.\n`,
        );
      else
        context.stdout.write(
          `${answer === 'allow' ? 'Allowed' : 'Denied'}${decision === 'allow-session' ? ' for this session' : decision === 'allow-always' ? ', always, for every session of this agent' : ''}.\n`,
        );
      return Exit.Ok;
    });
  },
};
