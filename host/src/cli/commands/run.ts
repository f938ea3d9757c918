import { resolve } from 'node:path';
import type { SessionSummary } from '@tether/shared-protocol';
import { visibleText } from '@tether/shared-protocol';
import { findOnPath } from '../../sessions/acp/agent-catalog.js';
import type { ControlClient } from '../../control/control-client.js';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, failed, withClient } from '../common.js';
import { attachEndLine, attachTerminal } from '../terminal-attach.js';
import { flagOption, valueOption } from '../option.js';

const DETACH_HELP = 'Ctrl-] detaches: the program goes on, and tether attach NAME returns to it.';

export const runCommand: Command = {
  path: ['run'],
  summary: 'run a program (an agent such as claude or codex) in a terminal the phone can follow',
  usage: '[--name NAME] [--cwd DIR] -- COMMAND [ARG…]',
  details:
    'The program runs in a terminal the host holds, shown in the app as a session you can watch and\n' +
    `type into. This terminal is attached to it. ${DETACH_HELP}\n` +
    'Closing this window does not end the program. When its screen stops at a question (prompt patterns\n' +
    'for known agents, more in agents.json), the session waits for you and, with push on, notifies.',
  options: [
    DATA_DIR_OPTION,
    valueOption('name', 'NAME', 'what to call it (default: the program name)'),
    valueOption('cwd', 'DIR', 'the folder to run it in (default: this one)'),
    flagOption('detached', 'start it without attaching this terminal'),
  ],
  arity: [1, 256],
  run: (context) =>
    withClient(context, async (client) => {
      const [program, ...args] = context.args.positionals;
      const path = findOnPath(program!.includes('/') ? resolve(program!) : program!, context.env);
      if (!path) {
        context.stderr.write(`tether run: ${visibleText(program!)}: command not found\n`);
        return Exit.Error;
      }
      const name = stringOption(context.args, 'name');
      const started = await client.call('terminals.run', {
        ...(name !== undefined ? { name } : {}),
        cwd: resolve(stringOption(context.args, 'cwd') ?? process.cwd()),
        command: [path, ...args],
        env: stringsOnly(context.env),
        cols: process.stdout.columns || 80,
        rows: process.stdout.rows || 24,
      });
      if (failed(context, started)) return Exit.Error;
      const { session, terminal } = started.value;
      if (flag(context.args, 'detached')) {
        context.stdout.write(
          `Started ${visibleText(session.title)}. tether attach ${visibleText(session.title)} shows it.\n`,
        );
        return Exit.Ok;
      }
      context.stderr.write(`[${visibleText(session.title)} started. ${DETACH_HELP}]\r\n`);
      return follow(context, client, terminal.id, session.title, true);
    }),
};

export const attachCommand: Command = {
  path: ['attach'],
  summary: 'attach this terminal to a program started with tether run',
  usage: 'NAME',
  details: DETACH_HELP,
  options: [DATA_DIR_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const wanted = context.args.positionals[0]!;
      const listed = await client.call('sessions.list', { includeArchived: true });
      if (failed(context, listed)) return Exit.Error;
      const live = listed.value.sessions.filter((s) => s.kind === 'terminal' && s.terminalId !== undefined);
      const found = pick(live, wanted);
      if (!found?.terminalId) {
        const names = live.map((s) => visibleText(s.title)).join(', ');
        context.stderr.write(
          `tether attach: no program called ${visibleText(wanted)} is held open${names ? ` (there are: ${names})` : ''}\n`,
        );
        return Exit.Error;
      }
      return follow(context, client, found.terminalId, found.title, false);
    }),
};

/** The session called `wanted` (or with that id); of several, the newest still running. */
function pick(sessions: readonly SessionSummary[], wanted: string): SessionSummary | undefined {
  const named = sessions.filter((s) => s.title === wanted || s.id === wanted);
  return named.find((s) => s.status === 'running' || s.status === 'waiting') ?? named[0];
}

async function follow(
  context: CommandContext,
  client: ControlClient,
  terminalId: string,
  name: string,
  fromStart: boolean,
): Promise<number> {
  const outcome = await attachTerminal({
    client,
    terminalId,
    name,
    input: process.stdin,
    output: process.stdout,
    fromStart,
  });
  context.stderr.write(`\r\n${attachEndLine(outcome, name)}\r\n`);
  if (outcome.kind === 'exited') return outcome.code ?? Exit.Error;
  return outcome.kind === 'detached' ? Exit.Ok : Exit.Error;
}

function stringsOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
