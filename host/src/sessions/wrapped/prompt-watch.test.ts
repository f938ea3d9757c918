import { ManualClock } from '@tether/shared-protocol/testing';
import type { OutputReader, TerminalHandle } from '@tether/machine';
import { describe, expect, it } from 'vitest';
import { READY_PROMPTS } from '../acp/ready-prompts.js';
import { PROMPT_LINES, PromptWatch, findQuestion, promptPatterns } from './prompt-watch.js';

const CLAUDE_SCREEN = [
  '╭──────────────────────────────────────────╮',
  '│ Bash command                             │',
  '│                                          │',
  '│   npm test                               │',
  '│   Run the tests                          │',
  '│                                          │',
  '│ Do you want to proceed?                  │',
  '│ ❯ 1. Yes                                 │',
  "│   2. Yes, and don't ask again            │",
  '│   3. No, and tell Claude what to do      │',
  '╰──────────────────────────────────────────╯',
];

describe('questions on a screen', () => {
  it('finds the question a known agent stops at, trimmed of its frame', () => {
    expect(findQuestion(CLAUDE_SCREEN, promptPatterns('/usr/local/bin/claude'))).toBe('Do you want to proceed?');
    expect(findQuestion(['', 'Allow command?', '  ls -la', ''], promptPatterns('codex'))).toBe('Allow command?');
    expect(findQuestion(['Overwrite it? [y/N]'], promptPatterns('/bin/anything'))).toBe('Overwrite it? [y/N]');
  });

  it('stays quiet for a shell prompt, an agent working, and a question long scrolled past', () => {
    const bash = promptPatterns('bash');
    expect(findQuestion(['$ ls', 'a  b', '$ '], bash)).toBeUndefined();
    expect(findQuestion(['✻ Thinking… (esc to interrupt)'], promptPatterns('claude'))).toBeUndefined();
    const scrolled = ['Overwrite it? [y/N]', ...Array.from({ length: PROMPT_LINES }, (_, i) => `line ${i}`)];
    expect(findQuestion(scrolled, bash)).toBeUndefined();
    // Only the patterns of the program, and those for every program, apply.
    expect(findQuestion(['Allow command?'], bash)).toBeUndefined();
  });

  it("replaces a program's patterns from the config", () => {
    const prompts = { claude: { writtenFor: 'Claude Code 9', patterns: ['^Ready\\?$'] } };
    expect(findQuestion(CLAUDE_SCREEN, promptPatterns('claude', prompts))).toBeUndefined();
    expect(findQuestion(['Ready?'], promptPatterns('claude', prompts))).toBe('Ready?');
  });
});

/**
 * The question shapes each ready set was written for, as the program of that version draws them:
 * if one stops matching, the set no longer describes the version it says it was written for.
 */
const KNOWN_QUESTIONS: Record<string, { screen: string[]; question: string }[]> = {
  claude: [{ screen: CLAUDE_SCREEN, question: 'Do you want to proceed?' }],
  codex: [
    {
      screen: [
        '  Would you like to run the following command?',
        '  Reason: run the tests',
        '  $ npm test',
        '› 1. Yes, proceed (y)',
        "  2. Yes, and don't ask again for commands that start with `npm test` (p)",
        '  3. No, and tell Codex what to do differently (esc)',
        '  Press enter to confirm or esc to cancel',
      ],
      question: 'Would you like to run the following command?',
    },
    {
      screen: ['  Would you like to make the following edits?', '› 1. Yes, proceed (y)'],
      question: 'Would you like to make the following edits?',
    },
  ],
  gemini: [
    {
      screen: ['│ ? Shell npm test', "│ Allow execution of: 'npm test'?", '│ ● 1. Yes, allow once'],
      question: "Allow execution of: 'npm test'?",
    },
    { screen: ['│ Apply this change?', '│ ● 1. Yes, allow once'], question: 'Apply this change?' },
  ],
  aider: [{ screen: ['Create new file? (Y)es/(N)o [Yes]:'], question: 'Create new file? (Y)es/(N)o [Yes]:' }],
};

describe('the ready prompt sets', () => {
  it.each(Object.entries(KNOWN_QUESTIONS))(
    'match the questions %s asks in the version they were written for',
    (program, shapes) => {
      expect(READY_PROMPTS[program]?.writtenFor).not.toBe('');
      for (const { screen, question } of shapes) expect(findQuestion(screen, promptPatterns(program))).toBe(question);
    },
  );

  it('match no question a later version asks in other words: the session stays running, never waiting', () => {
    // Invented wordings a later version might use: nothing in them is a question any set knows.
    expect(findQuestion(['Run `npm test`?', '  › Run it   Skip'], promptPatterns('claude'))).toBeUndefined();
    expect(
      findQuestion(['Permission needed to run npm test', '  ▸ Approve  Decline'], promptPatterns('codex')),
    ).toBeUndefined();
  });
});

/** A terminal handle whose screen the test sets, and whose readers it notifies. */
function fakeHandle(): TerminalHandle & { lines: string[]; readers: Set<OutputReader>; print(lines: string[]): void } {
  const readers = new Set<OutputReader>();
  const handle = {
    lines: [] as string[],
    readers,
    exit: undefined,
    screenLines: () => handle.lines,
    addReader: (reader: OutputReader) => readers.add(reader),
    release: (reader: OutputReader) => readers.delete(reader),
    print(lines: string[]) {
      handle.lines = lines;
      for (const reader of readers) reader.notify();
    },
  };
  return handle as unknown as ReturnType<typeof fakeHandle>;
}

describe('a prompt watch', () => {
  it('reads the screen once output is still, and tells only of changes', () => {
    const clock = new ManualClock();
    const handle = fakeHandle();
    const seen: (string | undefined)[] = [];
    const watch = new PromptWatch(handle, promptPatterns('sh'), clock, (q) => seen.push(q), 400);
    handle.print(['Continue? [y/N]']);
    clock.advance(399);
    handle.print(['Continue? [y/N]', '']); // a redraw restarts the wait
    clock.advance(399);
    expect(seen).toEqual([]);
    clock.advance(1);
    expect(seen).toEqual(['Continue? [y/N]']);
    handle.print(['Continue? [y/N] y', 'working']);
    clock.advance(400);
    handle.print(['Continue? [y/N] y', 'working', 'still working']);
    clock.advance(400);
    expect(seen).toEqual(['Continue? [y/N]', undefined]);
    watch.stop();
    expect(handle.readers.size).toBe(0);
    handle.print(['Again? [y/N]']);
    clock.advance(1000);
    expect(seen).toHaveLength(2);
  });

  it('a question the patterns stop matching (the program changed under them) sets the session running again', () => {
    const clock = new ManualClock();
    const handle = fakeHandle();
    const seen: (string | undefined)[] = [];
    new PromptWatch(handle, promptPatterns('claude'), clock, (q) => seen.push(q), 400);
    handle.print(CLAUDE_SCREEN);
    clock.advance(400);
    // The same program redraws its question in words no pattern knows: it is not waiting for all we know.
    handle.print(['Run `npm test`?', '  › Run it   Skip']);
    clock.advance(400);
    expect(seen).toEqual(['Do you want to proceed?', undefined]);
    // And it stays so however long it sits there.
    clock.advance(60 * 60_000);
    expect(seen).toHaveLength(2);
  });
});
