import type { Decision } from '@tether/shared-protocol';
import { flag, stringOption } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, withClient } from '../common.js';

export const approvalsCommand: Command = {
  path: ['approvals'],
  summary: 'list approvals waiting for an answer, each with its complete action',
  options: [
    DATA_DIR_OPTION,
    JSON_OPTION,
    { name: 'session', type: 'string', value: 'ID', description: 'only this session' },
  ],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const session = stringOption(context.args, 'session');
      const result = await client.call('approvals.list', session !== undefined ? { sessionId: session } : {});
      if (failed(context, result)) return Exit.Error;
      const { approvals } = result.value;
      if (flag(context.args, 'json')) printJson(context, approvals);
      else if (approvals.length === 0) context.stdout.write('Nothing is waiting for approval.\n');
      else {
        for (const a of approvals) {
          context.stdout.write(
            `${a.id}  ${a.kind} in session ${a.sessionId}, ${ago(a.createdAt)}, folder ${a.cwd}\n${a.action
              .split('\n')
              .map((l) => `  ${l}`)
              .join('\n')}\n\n`,
          );
        }
        context.stdout.write('Answer: tether approve ID allow|deny [--for-session] [--note TEXT]\n');
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
    {
      name: 'for-session',
      type: 'boolean',
      description: 'allow this for the rest of the session (for shell: this command)',
    },
    {
      name: 'prefix',
      type: 'string',
      value: 'TEXT',
      description: 'with --for-session on a shell command: allow commands starting with TEXT',
    },
    {
      name: 'note',
      type: 'string',
      value: 'TEXT',
      description: 'a note for the model (with deny: what to do instead)',
    },
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
    const prefix = stringOption(context.args, 'prefix');
    if ((forSession || prefix !== undefined) && answer === 'deny') {
      context.stderr.write('tether approve: --for-session and --prefix go with allow\n');
      return Promise.resolve(Exit.Usage);
    }
    const decision: Decision =
      answer === 'deny' ? 'deny' : forSession || prefix !== undefined ? 'allow-session' : 'allow-once';
    const note = stringOption(context.args, 'note');
    return withClient(context, async (client) => {
      const result = await client.call('approvals.answer', {
        id,
        decision,
        ...(note !== undefined ? { note } : {}),
        ...(prefix !== undefined ? { prefix } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      if (flag(context.args, 'json')) printJson(context, result.value.approval);
      else
        context.stdout.write(
          `${answer === 'allow' ? 'Allowed' : 'Denied'}${decision === 'allow-session' ? ' for this session' : ''}.\n`,
        );
      return Exit.Ok;
    });
  },
};
