import type { ShareExpiry, ShareLinkInfo } from '@tether/shared-protocol';
import { MAX_SHARE_LINKS_PER_SESSION, MAX_VIEWERS_PER_LINK, SHARE_EXPIRIES } from '@tether/shared-protocol';
import { flag, optionWords, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import type { ControlClient } from '../../control/control-client.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';
import { terminalQr } from '../terminal-qr.js';
import { flagOption, valueOption } from '../option.js';

export const shareCommand: Command = {
  path: ['share'],
  usage: 'SESSION | --list [SESSION] | --revoke ID',
  summary: 'share a session read-only with a link; list the links; revoke one',
  details: [
    'Whoever holds the link follows that one session live in a browser (no pairing, no prompt here),',
    'masked like the lock screen: no approvals, no messages, no terminal, no other session. The link is',
    `shown once: this computer keeps only its viewer's public key. At most ${MAX_SHARE_LINKS_PER_SESSION} working links a session,`,
    `${MAX_VIEWERS_PER_LINK} viewers a link. A revoked or expired link cuts its viewers off within a second.`,
  ].join('\n'),
  options: [
    DATA_DIR_OPTION,
    { name: 'expires', type: 'string', value: SHARE_EXPIRIES.join('|'), description: 'how long the link works (1d)' },
    valueOption('name', 'TEXT', 'a name to know the link by ("for the review")'),
    flagOption('photos', 'let viewers see the photos and files sent with messages'),
    flagOption('list', 'list the links, with viewers connected now'),
    valueOption('revoke', 'ID', 'revoke a link: its viewers are cut off at once'),
    JSON_OPTION,
  ],
  arity: [0, 1],
  run: (context) => {
    const session = context.args.positionals[0];
    const revoke = stringOption(context.args, 'revoke');
    const list = flag(context.args, 'list');
    const expires = stringOption(context.args, 'expires');
    // `--list` may name a session to list its links only.
    if (list ? revoke !== undefined : (session === undefined) === (revoke === undefined)) {
      return usage(context, 'give a SESSION to share, --list [SESSION], or --revoke ID');
    }
    if (expires !== undefined && !(SHARE_EXPIRIES as readonly string[]).includes(expires)) {
      return usage(context, `--expires takes ${SHARE_EXPIRIES.join(', ')}`);
    }
    return withClient(context, (client) => {
      if (revoke !== undefined) return revokeLink(context, client, revoke);
      if (list) return listLinks(context, client, session);
      return makeLink(context, client, session!, expires as ShareExpiry | undefined);
    });
  },
};

function usage(context: CommandContext, text: string): Promise<number> {
  context.stderr.write(`tether share: ${text}\n`);
  return Promise.resolve(Exit.Usage);
}

async function makeLink(
  context: CommandContext,
  client: ControlClient,
  sessionId: string,
  expires: ShareExpiry | undefined,
): Promise<number> {
  const name = stringOption(context.args, 'name');
  const result = await client.call('share.create', {
    sessionId,
    ...(expires ? { expires } : {}),
    ...(name !== undefined ? { name } : {}),
    includePhotos: flag(context.args, 'photos'),
  });
  if (failed(context, result)) return Exit.Error;
  if (flag(context.args, 'json')) {
    printJson(context, result.value);
    return Exit.Ok;
  }
  const { link, url, relayUrl } = result.value;
  context.stdout.write(
    `${terminalQr(url, process.stdout.isTTY === true)}\n${url}\n\n` +
      `Read-only link to ${link.sessionId}${link.name ? ` (${link.name})` : ''}, ` +
      `until ${new Date(link.expiresAt).toLocaleString()}${link.includePhotos ? ', with photos' : ''}.\n` +
      `It is shown only now. Revoke it: tether share ${optionWords('revoke', link.id).join(' ')}\n`,
  );
  // The same link on the relay's page: whoever runs that relay decides what the page shows.
  if (relayUrl) context.stdout.write(`From another network, through the relay's page: ${relayUrl}\n`);
  return Exit.Ok;
}

async function listLinks(context: CommandContext, client: ControlClient, sessionId?: string): Promise<number> {
  const result = await client.call('share.list', sessionId ? { sessionId } : {});
  if (failed(context, result)) return Exit.Error;
  const { links } = result.value;
  if (flag(context.args, 'json')) printJson(context, links);
  else if (links.length === 0) context.stdout.write('No share links. Make one: tether share SESSION\n');
  else
    context.stdout.write(
      table([
        ['ID', 'STATE', 'SESSION', 'NAME', 'VIEWERS', 'LAST SEEN', 'ENDS', 'MADE BY'],
        ...links.map((l) => row(l)),
      ]),
    );
  return Exit.Ok;
}

/** A link as a row. Its name and maker arrive as the host keeps them: hidden characters already marks. */
function row(link: ShareLinkInfo): string[] {
  const now = Date.now();
  return [
    link.id,
    link.state,
    link.sessionId,
    link.name || '-',
    String(link.viewers),
    link.lastSeenAt === null ? 'never' : ago(link.lastSeenAt, now),
    link.state === 'revoked'
      ? 'revoked'
      : link.expiresAt > now
        ? `in ${ago(now, link.expiresAt).replace(' ago', '')}`
        : ago(link.expiresAt, now),
    link.createdBy,
  ];
}

async function revokeLink(context: CommandContext, client: ControlClient, id: string): Promise<number> {
  const result = await client.call('share.revoke', { id });
  if (failed(context, result)) return Exit.Error;
  const n = result.value.closedConnections;
  context.stdout.write(`Revoked${n > 0 ? `; cut off ${n} viewer${n === 1 ? '' : 's'}` : ''}.\n`);
  return Exit.Ok;
}
