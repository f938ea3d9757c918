import type { Scope } from '@tether/shared-protocol';
import { DEFAULT_DEVICE_SCOPES, formatConfirmationCode, parseScopeList, visibleText } from '@tether/shared-protocol';
import { flag, stringOption } from '../args.js';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';
import { pairPageShort, servedElsewhere } from '../pair-page-text.js';
import { terminalQr } from '../terminal-qr.js';
import { valueOption } from '../option.js';

export const pairCommand: Command = {
  path: ['pair'],
  summary: 'show a new pairing link and its QR code (the old link stops working)',
  details: 'A link pairs one device and lasts 10 minutes. Scan it with the phone; confirm the code at this computer.',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('pair.create', {});
      if (failed(context, result)) return Exit.Error;
      if (flag(context.args, 'json')) printJson(context, result.value);
      else {
        const minutes = Math.round((result.value.expiresAt - Date.now()) / 60_000);
        context.stdout.write(
          `${terminalQr(result.value.link, process.stdout.isTTY === true)}\n${result.value.link}\n\nScan it with your phone (valid ${minutes} minutes, one device). Then confirm the code here, or: tether pair requests\n`,
        );
        // The link above already names the relay; this one opens the app on the relay's origin.
        if (result.value.relay && result.value.relay.link !== result.value.link)
          context.stdout.write(`From another network, through the relay: ${result.value.relay.link}\n`);
      }
      return Exit.Ok;
    }),
};

export const pairRequestsCommand: Command = {
  path: ['pair', 'requests'],
  summary: 'list pair requests waiting for an answer, with their confirmation codes',
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [0, 0],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('pair.requests', {});
      if (failed(context, result)) return Exit.Error;
      const { requests } = result.value;
      if (flag(context.args, 'json')) printJson(context, requests);
      else if (requests.length === 0) context.stdout.write('No pair request is waiting.\n');
      else {
        context.stdout.write(
          table([
            ['ID', 'CODE', 'DEVICE', 'APP FROM', 'GETS', 'ASKED'],
            ...requests.map((r) => [
              r.id,
              formatConfirmationCode(r.code),
              visibleText(r.label),
              r.page ? pairPageShort(r.page) : 'unknown',
              (r.scopes ?? DEFAULT_DEVICE_SCOPES).join(','),
              ago(r.createdAt),
            ]),
          ]),
        );
        context.stdout.write(
          'Check the code matches the phone, then: tether pair allow ID   (or: tether pair deny ID)\n',
        );
        if (requests.some((r) => r.page && servedElsewhere(r.page))) {
          context.stdout.write(
            'Whoever runs a relay or site the app came from decides what it does on the phone, so such a device gets\n' +
              'only watch,approve. If you run that page yourself: tether pair allow ID --scopes watch,approve,chat,terminal\n',
          );
        }
      }
      return Exit.Ok;
    }),
};

export const pairAllowCommand: Command = {
  path: ['pair', 'allow'],
  usage: 'ID',
  summary: 'allow a waiting pair request (only after the codes match)',
  options: [
    DATA_DIR_OPTION,
    valueOption(
      'scopes',
      'LIST',
      "what the device may do: watch,approve,chat,terminal,admin (default: all but admin from this computer's own page; watch,approve from a relay's page, another site or plain HTTP)",
    ),
    JSON_OPTION,
  ],
  arity: [1, 1],
  run: (context) => {
    const scopesText = stringOption(context.args, 'scopes');
    let scopes: Scope[] | undefined;
    if (scopesText !== undefined) {
      scopes = parseScopeList(scopesText);
      if (!scopes) {
        context.stderr.write(
          'tether pair allow: --scopes takes a comma-separated list of watch, approve, chat, terminal, admin\n',
        );
        return Promise.resolve(Exit.Usage);
      }
    }
    return withClient(context, async (client) => {
      const result = await client.call('pair.allow', {
        id: context.args.positionals[0]!,
        ...(scopes ? { scopes } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      if (flag(context.args, 'json')) printJson(context, result.value.device);
      else
        context.stdout.write(
          `Paired '${visibleText(result.value.device.label)}' as ${result.value.device.id} (${result.value.device.scopes.join(', ')}).\n`,
        );
      return Exit.Ok;
    });
  },
};

export const pairDenyCommand: Command = {
  path: ['pair', 'deny'],
  usage: 'ID',
  summary: 'deny a waiting pair request',
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('pair.deny', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      context.stdout.write('Denied.\n');
      return Exit.Ok;
    }),
};
