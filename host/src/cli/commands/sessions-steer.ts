import type { SessionBudget, SessionControls } from '@tether/shared-protocol';
import { MAX_BUDGET_TOKENS, MAX_BUDGET_USD, visibleText } from '@tether/shared-protocol';
import { flag, stringOption } from '../args.js';
import type { Command, CommandContext } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, JSON_OPTION, failed, printJson, table, withClient } from '../common.js';
import { sessionHeaderLines } from '../session-header.js';
import { flagOption, valueOption } from '../option.js';

/** `tether sessions commands ID`: the slash commands, modes and models a session offers. */
export const sessionsCommandsCommand: Command = {
  path: ['sessions', 'commands'],
  usage: 'ID',
  summary: "a session's slash commands (send one with tether sessions send ID /name …), modes and models",
  options: [DATA_DIR_OPTION, JSON_OPTION],
  arity: [1, 1],
  run: (context) =>
    withClient(context, async (client) => {
      const result = await client.call('sessions.controls', { id: context.args.positionals[0]! });
      if (failed(context, result)) return Exit.Error;
      if (flag(context.args, 'json')) printJson(context, result.value);
      else printControls(context, result.value);
      return Exit.Ok;
    }),
};

function printControls(context: CommandContext, controls: SessionControls): void {
  const out = context.stdout;
  if (controls.note) out.write(`${visibleText(controls.note)}\n\n`);
  if (controls.commands.length > 0) {
    out.write(
      table([
        ['COMMAND', 'FROM', 'WHAT IT DOES'],
        ...controls.commands.map((c) => [
          `/${c.name}${c.hint ? ` ${visibleText(c.hint)}` : ''}`,
          c.source,
          visibleText(c.description),
        ]),
      ]),
    );
  } else out.write('No slash commands.\n');
  out.write(choiceLines('Modes', controls.modes, controls.mode));
  out.write(choiceLines('Models', controls.models, controls.model));
  if (controls.price) {
    const p = controls.price;
    out.write(
      `\nPrice: $${p.inputPerMTok} in / $${p.outputPerMTok} out per million tokens (${p.source === 'config' ? 'prices.json' : "Tether's table"}, as of ${p.asOf})\n`,
    );
  }
}

function choiceLines(title: string, choices: SessionControls['modes'], current: string | undefined): string {
  if (choices.length === 0) return '';
  const lines = choices.map(
    (c) =>
      `  ${c.id === current ? '*' : ' '} ${visibleText(c.id)}${c.name !== c.id ? ` (${visibleText(c.name)})` : ''}${c.description ? `: ${visibleText(c.description)}` : ''}`,
  );
  return `\n${title}:\n${lines.join('\n')}\n`;
}

/** `tether sessions mode ID [MODE]` and `tether sessions model ID [MODEL]`: show, or switch. */
function switchCommand(what: 'mode' | 'model'): Command {
  return {
    path: ['sessions', what],
    usage: `ID [${what.toUpperCase()}]`,
    summary:
      what === 'mode'
        ? "list a session's modes, or switch it to one (plan, or an agent's own)"
        : "list the models a session may use, or switch it to one (Tether's own, or an agent's own)",
    options: [DATA_DIR_OPTION],
    arity: [1, 2],
    run: (context) =>
      withClient(context, async (client) => {
        const [id, value] = context.args.positionals as [string, string | undefined];
        if (value === undefined) {
          const controls = await client.call('sessions.controls', { id });
          if (failed(context, controls)) return Exit.Error;
          const list = what === 'mode' ? controls.value.modes : controls.value.models;
          const current = what === 'mode' ? controls.value.mode : controls.value.model;
          if (controls.value.note) context.stdout.write(`${visibleText(controls.value.note)}\n`);
          context.stdout.write(
            list.length === 0
              ? `This session has no ${what}s to choose.\n`
              : choiceLines(`${what === 'mode' ? 'Modes' : 'Models'} (* now)`, list, current).trimStart(),
          );
          return Exit.Ok;
        }
        const result =
          what === 'mode'
            ? await client.call('sessions.setMode', { id, mode: value })
            : await client.call('sessions.setModel', { id, model: value });
        if (failed(context, result)) return Exit.Error;
        const session = result.value.session;
        const now = what === 'mode' ? session.mode?.name : (session.agentModel?.name ?? session.model);
        context.stdout.write(`The ${what} is now ${visibleText(now ?? value)}.\n`);
        return Exit.Ok;
      }),
  };
}

export const sessionsModeCommand = switchCommand('mode');
export const sessionsModelCommand = switchCommand('model');

/** A budget's tokens as typed: a whole number (1_000 and 1,000 taken), else undefined. */
export function parseBudgetTokens(text: string): number | undefined {
  const clean = text.trim().replace(/[_,]/g, '');
  if (!/^\d{1,13}$/.test(clean)) return undefined;
  const n = Number(clean);
  return n >= 1 && n <= MAX_BUDGET_TOKENS ? n : undefined;
}

/** A budget's dollars as typed (`2.50`, `$2.50`), else undefined. */
export function parseBudgetUsd(text: string): number | undefined {
  const clean = text.trim().replace(/^\$/, '');
  if (!/^\d{1,7}(\.\d{1,4})?$/.test(clean)) return undefined;
  const n = Number(clean);
  return n >= 0.01 && n <= MAX_BUDGET_USD ? n : undefined;
}

/** `tether sessions budget ID [--tokens N] [--usd X] [--off]`: show, set or remove it. */
export const sessionsBudgetCommand: Command = {
  path: ['sessions', 'budget'],
  usage: 'ID [--tokens N] [--usd X] [--off]',
  summary: 'what a session may spend (tokens in and out, or US dollars); a run stops before passing it',
  details:
    'Without flags: what it spent and its budget. A session stopped at its budget goes on when the budget is raised or removed.',
  options: [
    DATA_DIR_OPTION,
    valueOption('tokens', 'N', 'tokens in and out together, over the session'),
    valueOption('usd', 'X', 'US dollars over the session (needs a known price)'),
    flagOption('off', 'remove the budget'),
  ],
  arity: [1, 1],
  run: (context) => {
    const id = context.args.positionals[0]!;
    const tokensText = stringOption(context.args, 'tokens');
    const usdText = stringOption(context.args, 'usd');
    const off = flag(context.args, 'off');
    const usage = (why: string) => {
      context.stderr.write(`tether sessions budget: ${why}\n`);
      return Promise.resolve(Exit.Usage);
    };
    if (off && (tokensText !== undefined || usdText !== undefined)) return usage('--off takes no --tokens or --usd');
    const tokens = tokensText === undefined ? undefined : parseBudgetTokens(tokensText);
    if (tokensText !== undefined && tokens === undefined)
      return usage(`--tokens takes a whole number from 1 to ${MAX_BUDGET_TOKENS}`);
    const usd = usdText === undefined ? undefined : parseBudgetUsd(usdText);
    if (usdText !== undefined && usd === undefined) return usage('--usd takes dollars, at least 0.01 (e.g. 2.50)');
    return withClient(context, async (client) => {
      if (!off && tokens === undefined && usd === undefined) {
        const shown = await client.call('sessions.get', { id });
        if (failed(context, shown)) return Exit.Error;
        const lines = sessionHeaderLines(shown.value.session).filter((l) => l.startsWith('Spent:'));
        context.stdout.write(`${lines[0] ?? 'Spent: nothing yet.'}\n`);
        if (!shown.value.session.budget)
          context.stdout.write('No budget. Set one: tether sessions budget ID --tokens N\n');
        return Exit.Ok;
      }
      const budget: SessionBudget | null = off
        ? null
        : { ...(tokens !== undefined ? { tokens } : {}), ...(usd !== undefined ? { usd } : {}) };
      const result = await client.call('sessions.setBudget', { id, budget });
      if (failed(context, result)) return Exit.Error;
      const session = result.value.session;
      context.stdout.write(
        budget === null
          ? 'Budget removed.\n'
          : `Budget set.${session.status === 'running' ? ' The session goes on.' : ''}\n`,
      );
      return Exit.Ok;
    });
  },
};
