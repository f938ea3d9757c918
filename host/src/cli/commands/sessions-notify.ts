import type { NotifyLevel } from '@tether/shared-protocol';
import type { Command } from '../command.js';
import { Exit } from '../command.js';
import { DATA_DIR_OPTION, failed, withClient } from '../common.js';

const LEVELS: readonly NotifyLevel[] = ['needs', 'done', 'off'];

const SAID: Record<NotifyLevel, string> = {
  needs: 'Devices are notified when this session needs you (an approval, a question, a failed run).',
  done: 'Devices are notified when this session needs you, and when a run finishes.',
  off: 'Devices are not notified of this session.',
};

export const sessionsNotifyCommand: Command = {
  path: ['sessions', 'notify'],
  usage: 'ID needs|done|off',
  summary: 'when devices are notified of this session: when it needs you (default), also when done, never',
  options: [DATA_DIR_OPTION],
  arity: [2, 2],
  run: (context) => {
    const [id, value] = context.args.positionals as [string, string];
    const level = LEVELS.find((l) => l === value);
    if (level === undefined) {
      context.stderr.write('tether sessions notify: say needs, done or off\n');
      return Promise.resolve(Exit.Usage);
    }
    return withClient(context, async (client) => {
      const result = await client.call('sessions.configure', { id, notify: level });
      if (failed(context, result)) return Exit.Error;
      context.stdout.write(`${SAID[result.value.session.notify ?? level]}\n`);
      return Exit.Ok;
    });
  },
};
