import { MAX_MODEL_CALLS_LIMIT } from '@tether/shared-protocol';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, failed, withClient } from '../common.js';

/** A model-call limit as typed: a whole number in 1…MAX_MODEL_CALLS_LIMIT, else null. */
export function parseModelCallLimit(text: string): number | null {
  if (!/^\d{1,6}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 && n <= MAX_MODEL_CALLS_LIMIT ? n : null;
}

export const sessionsLimitCommand: Command = {
  path: ['sessions', 'limit'],
  usage: 'ID N|default',
  summary: 'model calls a run of this session may make before it waits for "go on"',
  options: [DATA_DIR_OPTION],
  arity: [2, 2],
  run: (context) => {
    const [id, value] = context.args.positionals as [string, string];
    const limit = value === 'default' ? null : parseModelCallLimit(value);
    if (limit === null && value !== 'default') {
      context.stderr.write(
        `tether sessions limit: say a whole number from 1 to ${MAX_MODEL_CALLS_LIMIT}, or default\n`,
      );
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const result = await client.call('sessions.configure', { id, maxModelCalls: limit });
      if (failed(context, result)) return Exit.Error;
      const activity = result.value.session.activity;
      context.stdout.write(
        `Runs of this session stop after ${activity?.maxModelCalls ?? limit} model calls${limit === null ? " (the host's default)" : ''}.\n`,
      );
      return Exit.Ok;
    });
  },
};
