/**
 * The questions the command-line agents people wrap (`tether run -- claude`) stop at, as the
 * agents config's ready `prompts`: per program (the command's base name; `*` for every program),
 * the patterns and the version of the program they were written for. A program changes its words
 * between versions: a question no pattern matches leaves its session `running` (never `waiting`,
 * never failed), and the terminal still shows the question. `agents.json` replaces a program's set.
 */

/** Patterns for one program's questions, and what they were written against. */
export interface PromptSet {
  /** The program and version whose screens the patterns were checked on ("Claude Code 2.1"); '' when none in particular. */
  writtenFor: string;
  /** JavaScript regular expressions (`u` flag), each matched against one line of the screen as plain text. */
  patterns: readonly string[];
}

export const READY_PROMPTS: Readonly<Record<string, PromptSet>> = {
  // "Do you want to proceed?" over a numbered menu, "❯ 1. Yes" on the chosen row.
  claude: {
    writtenFor: 'Claude Code 2.1',
    patterns: [
      'Do you want to (proceed|make this edit|create|allow|run)',
      'Would you like to proceed\\?',
      '^\\W*❯\\s*1\\.\\s*Yes\\b',
    ],
  },
  // "Would you like to run the following command?" (or make the following edits, grant these
  // permissions), "› 1. Yes, proceed (y)", "Press enter to confirm or esc to cancel".
  codex: {
    writtenFor: 'Codex CLI 0.157',
    patterns: [
      'Would you like to (run|make|apply|grant)',
      'Do you want to approve network access',
      'Press enter to confirm or esc to cancel',
      'Allow command\\?',
      'Approve (this|the) ',
      '\\bAllow once\\b',
    ],
  },
  // "Allow execution of: 'npm test'?", "Apply this change?", then "Allow once" and friends.
  gemini: {
    writtenFor: 'Gemini CLI 0.61',
    patterns: ['Allow execution', 'Apply this change\\?', 'Do you want to proceed\\?', 'Allow once'],
  },
  // "Run shell command? (Y)es/(N)o [Yes]:"
  aider: { writtenFor: 'aider 0.x', patterns: ['\\(Y\\)es/\\(N\\)o'] },
  '*': {
    writtenFor: '',
    patterns: [
      '\\[[yY]/[nN]\\]:?\\s*$',
      '\\([yY]/[nN]\\):?\\s*$',
      '\\((yes|y)/(no|n)\\):?\\s*$',
      'Press (Enter|RETURN) to continue',
    ],
  },
};
