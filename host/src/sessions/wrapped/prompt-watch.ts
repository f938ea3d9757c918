import type { Clock, TimerHandle } from '@tether/shared-protocol';
import type { OutputReader, TerminalHandle } from '@tether/machine';
import type { PromptSet } from '../acp/ready-prompts.js';
import { READY_PROMPTS } from '../acp/ready-prompts.js';

/** Lines from the bottom of the screen (not counting blank ones) a question is looked for in. */
export const PROMPT_LINES = 12;
/** Milliseconds a program's output must be still before its screen is read for a question: long
 * enough for a redraw to finish, short enough that the phone hears of it at once. */
export const PROMPT_QUIET_MS = 400;
/** Characters of a question line kept for the session list and the notification. */
const QUESTION_CHARS = 300;

/** The prompt sets by program name: the agents config's `prompts` (ready ones and `agents.json`'s). */
export type PromptSets = Readonly<Record<string, PromptSet>>;

/** The set written for `program` itself (a path or a name), not counting those for every program. */
export function programPrompts(program: string, prompts: PromptSets): PromptSet | undefined {
  const name = program.split('/').pop() ?? program;
  return name === '*' ? undefined : prompts[name];
}

/** The patterns that apply to `program` (a path or a name): its own, then those for every program. */
export function promptPatterns(program: string, prompts: PromptSets = READY_PROMPTS): RegExp[] {
  return [...(programPrompts(program, prompts)?.patterns ?? []), ...(prompts['*']?.patterns ?? [])].map(
    (source) => new RegExp(source, 'u'),
  );
}

/**
 * The question a screen ends at: the first matching line among its last PROMPT_LINES non-blank
 * ones, trimmed of frame characters and cut; undefined when none matches.
 */
export function findQuestion(lines: readonly string[], patterns: readonly RegExp[]): string | undefined {
  const recent = lines.filter((line) => line.trim() !== '').slice(-PROMPT_LINES);
  for (const line of recent) {
    if (patterns.some((pattern) => pattern.test(line))) {
      const text = line.replace(/^[\s│┃|╭╰─>]+|[\s│┃|╮╯─]+$/gu, '');
      return text.length > QUESTION_CHARS ? `${text.slice(0, QUESTION_CHARS - 1)}…` : text;
    }
  }
  return undefined;
}

/**
 * Watches a wrapped program's screen: once its output has been still for PROMPT_QUIET_MS, reads
 * the screen and says when the question it waits at changes (a question appeared, or went once
 * it was answered). It reads nothing itself, so it never holds the program back.
 */
export class PromptWatch implements OutputReader {
  private timer: TimerHandle | undefined;
  private question: string | undefined;
  private stopped = false;

  constructor(
    private readonly handle: TerminalHandle,
    private readonly patterns: readonly RegExp[],
    private readonly clock: Clock,
    private readonly onChange: (question: string | undefined) => void,
    private readonly quietMs = PROMPT_QUIET_MS,
  ) {
    handle.addReader(this);
  }

  notify(): void {
    if (this.stopped) return;
    if (this.handle.exit) return this.stop();
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.look(), this.quietMs);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.handle.release(this);
  }

  private look(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const question = findQuestion(this.handle.screenLines(), this.patterns);
    if (question === this.question) return;
    this.question = question;
    this.onChange(question);
  }
}
