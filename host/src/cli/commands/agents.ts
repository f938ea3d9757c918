import { visibleText } from '@tether/shared-protocol';
import { resolve } from 'node:path';
import type { OptionSpec } from '../args.js';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, ago, failed, printJson, table, withClient } from '../common.js';
import { valueOption } from '../option.js';

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
        for (const a of agents.filter((agent) => !agent.available && agent.setup !== undefined))
          context.stdout.write(`To add ${visibleText(a.title)}: ${visibleText(a.setup!)}\n`);
      }
      return Exit.Ok;
    }),
};

const CWD_OPTION: OptionSpec = valueOption(
  'cwd',
  'DIR',
  'the folder the sessions ran in (default: the current folder)',
);
const MACHINE_OPTION: OptionSpec = valueOption(
  'machine',
  'NAME',
  'the machine the folder is on (see tether machines); --cwd is then a folder there',
);

/** The folder as the host should read it: a machine's as written, this computer's made absolute. */
function folderOf(context: CommandContext): { cwd: string; machine?: string } | undefined {
  const machine = stringOption(context.args, 'machine');
  const cwd = stringOption(context.args, 'cwd');
  if (machine !== undefined && cwd === undefined) return undefined;
  return machine !== undefined ? { cwd: cwd!, machine } : { cwd: resolve(cwd ?? process.cwd()) };
}

export const agentsSessionsCommand: Command = {
  path: ['agents', 'sessions'],
  usage: 'NAME',
  summary: "list an agent's own earlier sessions in a folder (those started at the computer), newest first",
  details: 'Continue one in Tether, followed and steered from the phone: tether agents continue NAME ID.',
  options: [DATA_DIR_OPTION, CWD_OPTION, MACHINE_OPTION, JSON_OPTION],
  arity: [1, 1],
  run: (context) => {
    const where = folderOf(context);
    if (!where) {
      context.stderr.write('tether agents sessions: with --machine, give --cwd DIR (a folder on that machine)\n');
      return Promise.resolve(Exit.Usage);
    }
    const agent = context.args.positionals[0]!;
    return withClient(context, async (client) => {
      const result = await client.call('agents.sessions', { agent, ...where });
      if (failed(context, result)) return Exit.Error;
      const list = result.value;
      if (flag(context.args, 'json')) {
        printJson(context, list);
        return Exit.Ok;
      }
      if (!list.canContinue) {
        context.stdout.write(
          `Continuing isn't available for ${visibleText(agent)}: ${visibleText(list.reason ?? '')}\n`,
        );
        return Exit.Ok;
      }
      if (list.sessions.length === 0) {
        context.stdout.write(`No earlier sessions of ${visibleText(agent)} in ${visibleText(where.cwd)}.\n`);
        return Exit.Ok;
      }
      context.stdout.write(`Sessions of ${visibleText(agent)} in ${visibleText(where.cwd)}, newest first:\n`);
      const rows = list.sessions.map((s) => [
        visibleText(s.id),
        s.updatedAt === null ? '—' : ago(s.updatedAt),
        s.continuedBy ?? '',
        visibleText(s.title),
      ]);
      context.stdout.write(table([['ID', 'UPDATED', 'IN TETHER', 'TITLE'], ...rows]));
      if (list.truncated)
        context.stdout.write(`(the newest ${list.sessions.length}; ${visibleText(agent)} has more)\n`);
      if (!list.showsHistory) {
        context.stdout.write(
          `${visibleText(agent)} cannot replay a session: continuing one goes on from it without showing the conversation so far.\n`,
        );
      }
      context.stdout.write(`Continue one: tether agents continue ${visibleText(agent)} ID\n`);
      return Exit.Ok;
    });
  },
};

export const agentsContinueCommand: Command = {
  path: ['agents', 'continue'],
  usage: 'NAME ID',
  summary: "continue an agent's own session (see tether agents sessions) as a Tether session",
  details:
    'The agent loads it and replays it into the transcript; then it is a session like any other, followed and steered from the phone. Continuing it again gives the same session.',
  options: [
    DATA_DIR_OPTION,
    CWD_OPTION,
    MACHINE_OPTION,
    valueOption('title', 'TEXT', "the session's title in Tether"),
    JSON_OPTION,
  ],
  arity: [2, 2],
  run: (context) => {
    const where = folderOf(context);
    if (!where) {
      context.stderr.write('tether agents continue: with --machine, give --cwd DIR (a folder on that machine)\n');
      return Promise.resolve(Exit.Usage);
    }
    const [agent, id] = context.args.positionals as [string, string];
    const title = stringOption(context.args, 'title');
    return withClient(context, async (client) => {
      const result = await client.call('sessions.continue', {
        agent,
        id,
        ...where,
        ...(title !== undefined ? { title } : {}),
      });
      if (failed(context, result)) return Exit.Error;
      const session = result.value.session;
      if (flag(context.args, 'json')) printJson(context, session);
      else context.stdout.write(`${session.id}\nFollow it: tether sessions show ${session.id} --follow\n`);
      return Exit.Ok;
    });
  },
};
