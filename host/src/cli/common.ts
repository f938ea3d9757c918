import type { ProtocolError, Result } from '@tether/shared-protocol';
import { hiddenClass, visibleText } from '@tether/shared-protocol';
import { dataPaths, resolveDataDir } from '../config/data-dir.js';
import { ControlClient } from '../control/control-client.js';
import type { OptionSpec } from './args.js';
import { stringOption } from './args.js';
import type { CommandContext } from './command.js';
import { Exit } from './command.js';
import { flagOption, valueOption } from './option.js';

export const DATA_DIR_OPTION: OptionSpec = valueOption(
  'data-dir',
  'DIR',
  'the host data dir (default: $TETHER_DATA_DIR, else ~/.local/share/tether)',
);

export const JSON_OPTION: OptionSpec = flagOption('json', 'print JSON instead of text');

/** Runs `body` with a client of the running host, or explains that none is running. */
export async function withClient(
  context: CommandContext,
  body: (client: ControlClient) => Promise<number>,
): Promise<number> {
  const dir = resolveDataDir(stringOption(context.args, 'data-dir'), context.env);
  const client = await ControlClient.connect(dataPaths(dir).controlSocket);
  if (!client.ok) {
    context.stderr.write(`tether: ${visibleText(client.error.message)}\n`);
    return Exit.Error;
  }
  try {
    return await body(client.value);
  } finally {
    client.value.close();
  }
}

/** True (after printing its message) when a call failed. The message may echo a device's or model's text. */
export function failed<T>(context: CommandContext, result: Result<T>): result is { ok: false; error: ProtocolError } {
  if (result.ok) return false;
  context.stderr.write(`tether: ${visibleText(result.error.message)} (${visibleText(result.error.code)})\n`);
  return true;
}

export function printJson(context: CommandContext, value: unknown): void {
  context.stdout.write(`${jsonForTerminal(value, 2)}\n`);
}

/**
 * JSON whose every hidden character (bidi, zero-width, C1…) is a `\uXXXX` escape: the same value
 * to a program that parses it, and nothing a terminal can be tricked by when a person reads it.
 * (JSON.stringify already escapes C0 controls and lone surrogates.)
 */
export function jsonForTerminal(value: unknown, indent?: number): string {
  return (JSON.stringify(value, null, indent) ?? 'null').replace(/[^ -~]/gu, (char) =>
    hiddenClass(char.codePointAt(0)!) === undefined
      ? char
      : Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`).join(
          '',
        ),
  );
}

export function ago(time: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - time) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}

/** Pads columns of a table for a terminal. */
export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return `${rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}
