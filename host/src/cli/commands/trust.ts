import type { ControlResult, TrustConfig } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { flag } from '../args.js';
import { actionBlock } from '../approval-lines.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';
import { flagOption } from '../option.js';

/**
 * `tether trust FOLDER`: shows a folder's own agent configuration (each agent's hooks, MCP
 * servers, plugins, settings, and the files it is pinned to) and trusts exactly what was shown:
 * asked on a terminal, or with `--yes`. `--list` and `--revoke FOLDER` keep the list.
 */
export const trustCommand: Command = {
  path: ['trust'],
  usage: '[FOLDER]',
  summary: "let a folder's own agent configuration (hooks, MCP servers, plugins) load, as it is now",
  details:
    "Until a folder is trusted, agents started there get your user-level settings only, and its first session asks. Trust is pinned to the content: a changed hook, server or plugin asks again. --list shows what is trusted; --revoke FOLDER forgets a folder's.",
  options: [
    flagOption('yes', 'trust what is shown without asking'),
    flagOption('list', 'list the trusted folders'),
    flagOption('revoke', "forget what was trusted in FOLDER (every agent's)"),
    DATA_DIR_OPTION,
    JSON_OPTION,
  ],
  arity: [0, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const json = flag(context.args, 'json');
      const folder = context.args.positionals[0];
      if (flag(context.args, 'list')) {
        if (folder !== undefined) return usage(context, '--list takes no folder');
        const listed = await client.call('trust.list', {});
        if (failed(context, listed)) return Exit.Error;
        printList(context, listed.value.records, json);
        return Exit.Ok;
      }
      if (folder === undefined) return usage(context, 'name the folder: tether trust FOLDER');
      const path = resolve(folder);
      if (flag(context.args, 'revoke')) {
        const revoked = await client.call('trust.revoke', { folder: path });
        if (failed(context, revoked)) return Exit.Error;
        if (json) printJson(context, revoked.value);
        else
          context.stdout.write(
            revoked.value.revoked === 0
              ? `Nothing was trusted in ${visibleText(revoked.value.folder)}.\n`
              : `${visibleText(revoked.value.folder)} is not trusted any more: its next session asks again.\n`,
          );
        return Exit.Ok;
      }
      const shown = await client.call('trust.show', { folder: path });
      if (failed(context, shown)) return Exit.Error;
      const { configs } = shown.value;
      const toTrust = configs.filter((c) => c.present && !c.trusted && c.untrustable === undefined);
      if (!json) printShown(context, shown.value.folder, configs);
      const yes = flag(context.args, 'yes') || (toTrust.length > 0 && !json && (await confirm(context)));
      if (toTrust.length === 0 || !yes) {
        if (json) printJson(context, shown.value);
        else if (toTrust.length > 0)
          context.stdout.write(`Not trusted. To trust exactly this: tether trust ${shown.value.folder} --yes\n`);
        return Exit.Ok;
      }
      const set = await client.call('trust.set', {
        folder: shown.value.folder,
        fingerprints: toTrust.map((c) => ({ family: c.family, fingerprint: c.fingerprint })),
      });
      if (failed(context, set)) return Exit.Error;
      if (json) printJson(context, set.value);
      else
        context.stdout.write(
          `Trusted for ${set.value.records.map((r) => configs.find((c) => c.family === r.family)!.agent).join(', ')}, as shown, until it changes.\n`,
        );
      return Exit.Ok;
    }),
};

function usage(context: CommandContext, message: string): number {
  context.stderr.write(`tether trust: ${message}\n`);
  return Exit.Usage;
}

function printShown(context: CommandContext, folder: string, configs: readonly TrustConfig[]): void {
  context.stdout.write(`Folder: ${visibleText(folder)}\n`);
  for (const config of configs) {
    if (!config.present) {
      context.stdout.write(`${config.agent}: no configuration of its own here.\n`);
      continue;
    }
    const state = config.trusted
      ? 'trusted as it is'
      : config.untrustable !== undefined
        ? `cannot be trusted: ${visibleText(config.untrustable)}`
        : 'not trusted';
    context.stdout.write(`${config.agent} (${state}):\n${actionBlock(config.action, '  ')}\n`);
  }
}

function printList(context: CommandContext, records: ControlResult<'trust.list'>['records'], json: boolean): void {
  if (json) printJson(context, records);
  else if (records.length === 0) context.stdout.write('No folder is trusted.\n');
  else {
    const rows = records.map((r) => [
      visibleText(r.folder),
      r.family,
      r.place === 'local' ? 'this computer' : visibleText(r.place),
      ago(r.trustedAt),
      visibleText(r.trustedBy),
    ]);
    context.stdout.write(table([['FOLDER', 'AGENT', 'WHERE', 'TRUSTED', 'BY'], ...rows]));
  }
}

/** Asks on a terminal; anything but yes is no. Without a terminal, nothing is trusted unasked. */
async function confirm(context: CommandContext): Promise<boolean> {
  if (process.stdin.isTTY !== true) return false;
  const lines = createInterface({ input: process.stdin, output: context.stdout });
  try {
    const answer = await new Promise<string>((done) => lines.question('Trust exactly this? [y/N] ', done));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    lines.close();
  }
}
