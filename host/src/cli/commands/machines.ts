import { visibleText } from '@tether/shared-protocol';
import { flag } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';

export const machinesListCommand: Command = {
  path: ['machines'],
  summary: 'list the machines that lend themselves to this host',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('machines.list', {});
      if (failed(context, result)) return Exit.Error;
      const { machines } = result.value;
      if (flag(context.args, 'json')) printJson(context, machines);
      else if (machines.length === 0)
        context.stdout.write(
          'No machines. On another computer: tether machine share (with a token from tether token create)\n',
        );
      else {
        const rows = machines.map((m) => [
          m.id,
          visibleText(m.name),
          m.status,
          m.status === 'online' ? 'now' : m.lastSeenAt === null ? 'never' : ago(m.lastSeenAt),
          String(m.sessions),
          m.roots.map((r) => visibleText(r)).join(', '),
        ]);
        context.stdout.write(table([['ID', 'NAME', 'STATUS', 'LAST SEEN', 'SESSIONS', 'ROOTS'], ...rows]));
      }
      return Exit.Ok;
    }),
};

export const machinesForgetCommand: Command = {
  path: ['machines', 'forget'],
  usage: 'ID|NAME',
  summary: 'forget a machine: its link is dropped and its token cannot bring it back',
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('machines.forget', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      context.stdout.write('Forgotten. To share it again, make it a new token: tether token create --scope machine\n');
      return Exit.Ok;
    }),
};
