import { basename } from 'node:path';
import type { Clock, ControlParams, ControlResult, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { PtyTerminals, TerminalHandle } from '@tether/machine';
import type { SessionRecord } from '../../store/session-store.js';
import type { LiveSessions, RunResult, SessionBackend } from '../session-backend.js';
import type { SessionJournal } from '../session-journal.js';
import { commandLine } from '../acp/agent-catalog.js';
import type { PromptSets } from './prompt-watch.js';
import { PromptWatch, programPrompts, promptPatterns } from './prompt-watch.js';
import type { TerminalManager } from '../../terminals/terminal-manager.js';
import { terminalOpenError } from '../../terminals/terminal-manager.js';

export interface WrappedProgramsDeps {
  terminals: TerminalManager;
  local: Pick<PtyTerminals, 'run'>;
  /** Where the sessions are written, as every back-end's are. */
  journal: SessionJournal;
  /** Prompt patterns by program name (`agents.json`'s `prompts` over the ready ones). */
  prompts: PromptSets;
  clock: Clock;
  newId: (prefix: string) => string;
  quietMs?: number;
}

/** Characters of a command line kept as a session's `model` (what the lists show it runs). */
const COMMAND_LINE_CHARS = 256;
/** Ctrl-C, what "stop" means to a program in a terminal. */
const INTERRUPT = '\x03';

type RunParams = ControlParams<'terminals.run'>;

/**
 * Programs run with `tether run`: each in a terminal the host owns, followed as a session of
 * kind `terminal`. The program runs on whether or not anyone is attached, until it exits; its
 * screen is watched for the questions it stops at (the session then waits for the person), and
 * what it prints never enters the event log: only that it started, waits, and how it ended.
 */
export class WrappedPrograms implements SessionBackend, LiveSessions {
  private readonly watches = new Map<string, PromptWatch>();

  constructor(private readonly deps: WrappedProgramsDeps) {}

  readonly live: LiveSessions = this;

  /** A wrapped program's session is started by `tether run` (`start`), never by a message. */
  check(): Result<void> {
    return fail('unsupported', 'a terminal session is started with tether run');
  }

  run(): Promise<RunResult> {
    return Promise.resolve({ status: 'error', error: 'a terminal session has no runs' });
  }

  lostWithHost(record: SessionRecord): string {
    return `The host stopped, and ${record.title} with it. Start it again with tether run.`;
  }

  send(sessionId: string, text: string): Result<{ queued: boolean }> {
    return this.type(sessionId, text);
  }

  /** Starts a program in a terminal on this computer, as a new `terminal` session. */
  async start(params: RunParams): Promise<Result<ControlResult<'terminals.run'>>> {
    const { journal } = this.deps;
    const program = params.command[0] ?? '';
    const name =
      params.name ??
      basename(program)
        .replace(/[^A-Za-z0-9_.-]/g, '-')
        .replace(/^[^A-Za-z0-9]+/, '');
    if (!name) return fail('invalid-params', 'give the program a name with --name');
    if (this.liveSession(name)) {
      return fail(
        'conflict',
        `a program named ${name} is running already: attach with tether attach ${name}, or choose another --name`,
      );
    }
    const opened = await this.deps.local.run({
      command: params.command,
      cwd: params.cwd,
      env: params.env ?? {},
      cols: params.cols,
      rows: params.rows,
    });
    if (!opened.ok) return terminalOpenError(opened.error);
    const handle = opened.value;
    const now = this.deps.clock.now();
    const line = commandLine({ command: program, args: params.command.slice(1) });
    const record = journal.insert({
      id: this.deps.newId('s'),
      title: name,
      kind: 'terminal',
      place: 'local',
      cwd: handle.cwd,
      model: line.length > COMMAND_LINE_CHARS ? `${line.slice(0, COMMAND_LINE_CHARS - 1)}…` : line,
      agent: name,
      status: 'running',
      createdAt: now,
      updatedAt: now,
    });
    const sessionId = record.id;
    const terminal = this.deps.terminals.add(handle, 'local', {
      sessionId,
      keep: true,
      onRemoved: () => this.removed(sessionId),
    });
    journal.setTerminal(sessionId, terminal.id);
    journal.append(sessionId, {
      type: 'notice',
      level: 'info',
      text: `Started ${line} in a terminal on this computer, in ${handle.cwd}. On the computer, tether attach ${name} shows it.${patternsNote(program, this.deps.prompts)}`,
    });
    this.watch(sessionId, handle, program);
    handle.onExit((exit) => this.exited(sessionId, name, exit));
    journal.announce(sessionId);
    return ok({ session: journal.summary(sessionId)!, terminal });
  }

  /** Types a message into the program, then Enter (a message sent to a `terminal` session). */
  type(sessionId: string, text: string): Result<{ queued: boolean }> {
    const written = this.input(sessionId, `${text}\r`);
    return written.ok ? ok({ queued: false }) : written;
  }

  /** Ctrl-C to the program (stopping a `terminal` session). */
  interrupt(sessionId: string): Result<Record<string, never>> {
    const written = this.input(sessionId, INTERRUPT);
    return written.ok ? ok({}) : written;
  }

  private input(sessionId: string, data: string): Result<void> {
    const terminalId = this.deps.journal.terminal(sessionId);
    if (terminalId === undefined) return fail('conflict', 'the program has ended');
    return this.deps.terminals.input(terminalId, data);
  }

  /** The session of the running program called `name`, if there is one. */
  private liveSession(name: string): string | undefined {
    for (const [sessionId, terminalId] of this.deps.journal.terminals()) {
      const handle = this.deps.terminals.handle(terminalId);
      if (handle && !handle.exit && this.deps.journal.record(sessionId)?.title === name) return sessionId;
    }
    return undefined;
  }

  private watch(sessionId: string, handle: TerminalHandle, program: string): void {
    const patterns = promptPatterns(program, this.deps.prompts);
    if (patterns.length === 0) return;
    const watch = new PromptWatch(
      handle,
      patterns,
      this.deps.clock,
      (question) => this.questionChanged(sessionId, question),
      this.deps.quietMs,
    );
    this.watches.set(sessionId, watch);
  }

  private questionChanged(sessionId: string, question: string | undefined): void {
    const { journal } = this.deps;
    const record = journal.record(sessionId);
    if (!record || (record.status !== 'running' && record.status !== 'waiting')) return;
    if (question === undefined) {
      journal.update(sessionId, { status: 'running' });
    } else {
      journal.update(sessionId, { status: 'waiting', lastLine: question });
      journal.append(sessionId, { type: 'session.waiting', reason: 'question', text: question });
    }
    journal.announce(sessionId);
  }

  private exited(sessionId: string, name: string, exit: { code: number | null; signal: string | null }): void {
    // Hung up with its terminal (closed, or the host stopping): that was said already.
    const { journal } = this.deps;
    if (journal.terminal(sessionId) === undefined) return;
    this.watches.get(sessionId)?.stop();
    this.watches.delete(sessionId);
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
    const failed = exit.signal !== null || exit.code !== 0;
    journal.append(sessionId, { type: 'notice', level: failed ? 'warning' : 'info', text: `${name} ${how}.` });
    journal.update(sessionId, { status: failed ? 'error' : 'idle', lastLine: `${name} ${how}` });
    journal.announce(sessionId);
  }

  /** The terminal is gone (closed, idle after the exit, or the host stopping). */
  private removed(sessionId: string): void {
    this.watches.get(sessionId)?.stop();
    this.watches.delete(sessionId);
    const { journal } = this.deps;
    journal.setTerminal(sessionId, undefined);
    const record = journal.record(sessionId);
    if (record?.status === 'running' || record?.status === 'waiting') {
      journal.append(sessionId, { type: 'notice', level: 'warning', text: 'The terminal was closed.' });
      journal.update(sessionId, { status: 'interrupted' });
    }
    journal.announce(sessionId);
  }
}

/**
 * Which version's questions the session is watched for, when the program has a set of its own: a
 * newer version may ask in other words, which leaves the session running rather than waiting.
 */
function patternsNote(program: string, prompts: PromptSets): string {
  const set = programPrompts(program, prompts);
  if (!set) return '';
  const version = set.writtenFor === '' ? 'its prompt patterns' : `the prompt patterns written for ${set.writtenFor}`;
  return ` Its questions are recognised by ${version}; a question they do not match leaves the session running, and the terminal shows it.`;
}
