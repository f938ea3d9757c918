import { visibleText } from '@tether/shared-protocol';
import { flag } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, failed, printJson, table, withClient } from '../common.js';

export const agentsCommand: Command = {
  path: ['agents'],
  summary: 'list the ACP agents a session can be run by, and whether each can be started',
  details: 'Start a session of one: tether sessions new --agent NAME "…". Configure them in <data-dir>/agents.json.',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('agents.list', {});
      if (failed(context, result)) return Exit.Error;
      const { agents } = result.value;
      if (flag(context.args, 'json')) printJson(context, agents);
      else if (agents.length === 0) context.stdout.write('No agents are configured.\n');
      else {
        const rows = agents.map((a) => [
          a.name,
          a.available ? 'yes' : 'no',
          visibleText(a.command),
          visibleText(a.available ? a.title : `${a.title}: ${a.reason ?? 'unavailable'}`),
        ]);
        context.stdout.write(table([['NAME', 'AVAILABLE', 'COMMAND', 'AGENT'], ...rows]));
      }
      return Exit.Ok;
    }),
};
