import type { SessionCommand } from '@tether/shared-protocol';

/**
 * Slash commands as typed in a message: `/name` and what follows it. The name is one word of
 * letters, digits, `_`, `.`, `:` and `-` followed by a space or the end, so `/etc/hosts is …` is
 * text, not a command. A message starting with `//` is text beginning with `/`.
 */
export interface TypedCommand {
  name: string;
  /** The words after the name, trimmed ('' when none). */
  args: string;
}

const COMMAND = /^\/([A-Za-z0-9][\w.:-]{0,63})(?:\s+([\s\S]*))?$/;

export function parseCommand(text: string): TypedCommand | undefined {
  const match = COMMAND.exec(text.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? '').trim() };
}

/** The own loop's commands, as `sessions.controls` lists them (each skill is one more). */
export const OWN_COMMANDS: readonly SessionCommand[] = [
  {
    name: 'compact',
    description: 'Compact the conversation now: older turns summarized, older tool output cut',
    hint: '[what to keep in focus]',
    source: 'tether',
  },
  { name: 'model', description: 'Say the model, or switch to another', hint: '[model]', source: 'tether' },
  { name: 'mode', description: 'Say the mode, or switch (default, plan)', hint: '[mode]', source: 'tether' },
  {
    name: 'plan',
    description: 'Plan mode: only tools that change nothing, then a plan for you to accept',
    source: 'tether',
  },
  {
    name: 'clear',
    description: 'Go on in a new session in this folder, with nothing of this conversation',
    source: 'tether',
  },
  { name: 'help', description: 'List the commands', source: 'tether' },
];
