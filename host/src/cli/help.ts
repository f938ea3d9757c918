import type { OptionSpec } from './args.js';
import type { Command } from './command.js';
import { flagOption } from './option.js';

const HELP_OPTION: OptionSpec = flagOption('help', 'show this help');

export function optionsWithHelp(command: Command): OptionSpec[] {
  return [...command.options, HELP_OPTION];
}

export function commandUsage(command: Command): string {
  const lines = [
    `usage: tether ${command.path.join(' ')}${command.usage ? ` ${command.usage}` : ''}`,
    '',
    command.summary,
  ];
  if (command.details) lines.push('', command.details);
  const options = optionsWithHelp(command);
  lines.push('', 'options:');
  const labels = options.map((o) => `--${o.name}${o.type === 'boolean' ? '' : ` ${o.value ?? 'VALUE'}`}`);
  const width = Math.max(...labels.map((l) => l.length));
  options.forEach((o, i) => {
    const repeat = o.type === 'list' ? ' (repeatable)' : '';
    lines.push(`  ${labels[i]!.padEnd(width)}  ${o.description}${repeat}`);
  });
  return `${lines.join('\n')}\n`;
}

export function overview(commands: readonly Command[], version: string): string {
  const rows = [
    ...commands.map((c) => [`tether ${c.path.join(' ')}${c.usage ? ` ${c.usage}` : ''}`, c.summary] as const),
    // Handed to the relay's own program by the `tether` launcher (host/bin/tether.js).
    ['tether relay [options]', 'run a relay node, for hosts phones cannot reach directly (docs/relay.md)'] as const,
  ];
  const width = Math.max(0, ...rows.map(([l]) => l.length));
  return [
    `Tether ${version}: run AI coding agents on your own computers and steer them from a phone.`,
    '',
    'commands:',
    ...rows.map(([l, s]) => `  ${l.padEnd(width)}  ${s}`),
    '',
    'Every command takes --help. Exit codes: 0 ok, 1 error, 2 usage.',
    '',
  ].join('\n');
}
