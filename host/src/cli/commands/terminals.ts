import { visibleText } from '@tether/shared-protocol';
import { flag } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';

export const terminalsCommand: Command = {
  path: ['terminals'],
  summary: 'list the terminals open on this host (opened from a phone, or by tether run)',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('terminals.list', {});
      if (failed(context, result)) return Exit.Error;
      const { terminals } = result.value;
      if (flag(context.args, 'json')) printJson(context, terminals);
      else if (terminals.length === 0) context.stdout.write('No terminals are open.\n');
      else {
        const rows = terminals.map((t) => [
          t.id,
          t.machine,
          t.status === 'exited' ? `exited ${t.exitCode ?? ''}`.trim() : 'running',
          String(t.attached),
          `${t.cols}x${t.rows}`,
          ago(t.createdAt),
          t.sessionId ?? '-',
          visibleText(t.cwd),
        ]);
        context.stdout.write(
          table([['ID', 'MACHINE', 'STATE', 'DEVICES', 'SIZE', 'OPENED', 'SESSION', 'FOLDER'], ...rows]),
        );
      }
      return Exit.Ok;
    }),
};
