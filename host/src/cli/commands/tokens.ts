import { visibleText } from '@tether/shared-protocol';
import { flag, optionWords, stringOption } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';
import { valueOption } from '../option.js';

export const tokenCreateCommand: Command = {
  path: ['token', 'create'],
  summary: 'mint a token a machine shares itself with (shown once)',
  details:
    'The token is printed once and kept only as a hash. Put it in a file only you can read on the machine,\n' +
    'then run `tether machine share` there. With --json: {"token", "id", "name", "hostKey", "hostUrl"}.',
  options: [
    DATA_DIR_OPTION,
    valueOption('scope', 'SCOPE', 'what the token is for: machine'),
    valueOption('name', 'NAME', 'a name to know it by (the machine it is for)'),
    JSON_OPTION,
  ],
  arity: [0, 0],
  run: (context) => {
    const scope = stringOption(context.args, 'scope');
    const name = stringOption(context.args, 'name');
    if (scope !== 'machine' || name === undefined || name.trim() === '') {
      context.stderr.write('tether token create: give --scope machine and --name NAME\n');
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const result = await client.call('tokens.create', { scope, name: name.trim() });
      if (failed(context, result)) return Exit.Error;
      const status = await client.call('host.status', {});
      const hostUrl = status.ok ? status.value.remote.url : null;
      const { token, id, hostKey } = result.value;
      if (flag(context.args, 'json')) {
        printJson(context, { token, id, name: result.value.name, hostKey, hostUrl });
        return Exit.Ok;
      }
      const host = hostUrl ?? 'http://HOST:PORT';
      context.stdout.write(
        [
          `Machine token ${id} (${visibleText(result.value.name)}). It is shown this once; the host keeps only its hash:`,
          '',
          `  ${token}`,
          '',
          'On the machine, save it where only you can read it, then share folders:',
          '',
          '  (umask 077; mkdir -p ~/.config/tether && cat > ~/.config/tether/machine-token)   # paste it, then Ctrl-D',
          `  tether machine share --host ${host} --token-file ~/.config/tether/machine-token \\`,
          `      ${optionWords('name', visibleText(result.value.name).replace(/[^A-Za-z0-9._-]/g, '-')).join(' ')} --root ~/code ${optionWords('host-key', hostKey).join(' ')}`,
          '',
          'Add --install-service to keep it shared in the background. Revoke it with: tether tokens revoke ' + id,
          '',
        ].join('\n'),
      );
      return Exit.Ok;
    });
  },
};

export const tokensListCommand: Command = {
  path: ['tokens'],
  summary: 'list machine tokens (never the tokens themselves)',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('tokens.list', {});
      if (failed(context, result)) return Exit.Error;
      const { tokens } = result.value;
      if (flag(context.args, 'json')) printJson(context, tokens);
      else if (tokens.length === 0)
        context.stdout.write('No tokens. Make one: tether token create --scope machine --name laptop\n');
      else {
        const rows = tokens.map((t) => [
          t.id,
          visibleText(t.name),
          t.scope,
          t.revoked ? 'revoked' : 'active',
          ago(t.createdAt),
          t.lastUsedAt === null ? 'never' : ago(t.lastUsedAt),
        ]);
        context.stdout.write(table([['ID', 'NAME', 'SCOPE', 'STATE', 'CREATED', 'LAST USED'], ...rows]));
      }
      return Exit.Ok;
    }),
};

export const tokensRevokeCommand: Command = {
  path: ['tokens', 'revoke'],
  usage: 'ID',
  summary: 'revoke a token: the machines linked with it are dropped at once and stop',
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('tokens.revoke', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      const n = result.value.droppedLinks;
      context.stdout.write(`Revoked${n > 0 ? `; dropped ${n} live machine link${n === 1 ? '' : 's'}` : ''}.\n`);
      return Exit.Ok;
    }),
};
