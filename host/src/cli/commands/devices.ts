import { visibleText } from '@tether/shared-protocol';
import { flag } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';

export const devicesCommand: Command = {
  path: ['devices'],
  summary: 'list paired devices',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('devices.list', {});
      if (failed(context, result)) return Exit.Error;
      const { devices } = result.value;
      if (flag(context.args, 'json')) printJson(context, devices);
      else if (devices.length === 0) context.stdout.write('No paired devices. Pair one: tether pair\n');
      else {
        const rows = devices.map((d) => [
          d.id,
          d.revoked ? 'revoked' : 'active',
          visibleText(d.label),
          d.scopes.join(','),
          d.lastSeenAt === null ? 'never' : ago(d.lastSeenAt),
          d.fingerprint,
        ]);
        context.stdout.write(table([['ID', 'STATE', 'LABEL', 'SCOPES', 'LAST SEEN', 'KEY'], ...rows]));
      }
      return Exit.Ok;
    }),
};

export const devicesRevokeCommand: Command = {
  path: ['devices', 'revoke'],
  usage: 'ID',
  summary: 'revoke a device: its connections close at once and it can never connect again',
  details: 'An ID that starts with a dash goes after --, as in: tether devices revoke -- -Qx3kT9x0aQ1bZc7Yw_8Aa',
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('devices.revoke', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      const n = result.value.closedConnections;
      context.stdout.write(`Revoked${n > 0 ? `; closed ${n} live connection${n === 1 ? '' : 's'}` : ''}.\n`);
      return Exit.Ok;
    }),
};
