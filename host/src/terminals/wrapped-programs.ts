import { basename } from 'node:path';
import type { Clock, ControlParams, ControlResult, Result } from '@tether/shared-protocol';
import { fail, ok } from '@tether/shared-protocol';
import type { PtyTerminals, TerminalHandle } from '@tether/machine';
import type { EventLog } from '../store/event-log.js';
import type { SessionStore } from '../store/session-store.js';
import { commandLine } from '../agents/agent-catalog.js';
import type { PromptSets } from './prompt-watch.js';
import { PromptWatch, programPrompts, promptPatterns } from './prompt-watch.js';
import type { TerminalManager } from './terminal-manager.js';
import { terminalOpenError } from './terminal-manager.js';

export interface WrappedProgramsDeps {
  terminals: TerminalManager;
  local: Pick<PtyTerminals, 'run'>;
  sessions: SessionStore;
  log: EventLog;
  /** Appends a `session.updated` with the session's summary now. */
  announce: (sessionId: string) => void;
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
export class WrappedPrograms {
  private readonly watches = new Map<string, PromptWatch>();

  constructor(private readonly deps: WrappedProgramsDeps) {}

  async run(params: RunParams): Promise<Result<ControlResult<'terminals.run'>>> {
    const { sessions } = this.deps;
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
    const record = sessions.insert({
      id: this.deps.newId('s'),
      title: name,
      kind: 'terminal',
      place: 'local',
      cwd: handle.cwd,
      model: line.length > COMMAND_LINE_CHARS ? `${line.slice(0, COMMAND_LINE_CHARS - 1)}…` : line,
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
    sessions.terminals.set(sessionId, terminal.id);
    this.deps.log.append(sessionId, {
      type: 'notice',
      level: 'info',
      text: `Started ${line} in a terminal on this computer, in ${handle.cwd}. On the computer, tether attach ${name} shows it.${patternsNote(program, this.deps.prompts)}`,
    });
    this.watch(sessionId, handle, program);
    handle.onExit((exit) => this.exited(sessionId, name, exit));
    this.deps.announce(sessionId);
    return ok({ session: sessions.summary(sessions.get(sessionId)!), terminal });
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
    const terminalId = this.deps.sessions.terminals.get(sessionId);
    if (terminalId === undefined) return fail('conflict', 'the program has ended');
    return this.deps.terminals.input(terminalId, data);
  }

  /** The session of the running program called `name`, if there is one. */
  private liveSession(name: string): string | undefined {
    for (const [sessionId, terminalId] of this.deps.sessions.terminals) {
      const handle = this.deps.terminals.handle(terminalId);
      if (handle && !handle.exit && this.deps.sessions.get(sessionId)?.title === name) return sessionId;
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
    const { sessions } = this.deps;
    const record = sessions.get(sessionId);
    if (!record || (record.status !== 'running' && record.status !== 'waiting')) return;
    if (question === undefined) {
      sessions.update(sessionId, { status: 'running' });
    } else {
      sessions.update(sessionId, { status: 'waiting', lastLine: question });
      this.deps.log.append(sessionId, { type: 'session.waiting', reason: 'question', text: question });
    }
    this.deps.announce(sessionId);
  }

  private exited(sessionId: string, name: string, exit: { code: number | null; signal: string | null }): void {
    // Hung up with its terminal (closed, or the host stopping): that was said already.
    if (!this.deps.sessions.terminals.has(sessionId)) return;
    this.watches.get(sessionId)?.stop();
    this.watches.delete(sessionId);
    const how = exit.signal ? `was ended by ${exit.signal}` : `exited with code ${exit.code ?? 'unknown'}`;
    const failed = exit.signal !== null || exit.code !== 0;
    this.deps.log.append(sessionId, { type: 'notice', level: failed ? 'warning' : 'info', text: `${name} ${how}.` });
    this.deps.sessions.update(sessionId, { status: failed ? 'error' : 'idle', lastLine: `${name} ${how}` });
    this.deps.announce(sessionId);
  }

  /** The terminal is gone (closed, idle after the exit, or the host stopping). */
  private removed(sessionId: string): void {
    this.watches.get(sessionId)?.stop();
    this.watches.delete(sessionId);
    this.deps.sessions.terminals.delete(sessionId);
    const record = this.deps.sessions.get(sessionId);
    if (record?.status === 'running' || record?.status === 'waiting') {
      this.deps.log.append(sessionId, { type: 'notice', level: 'warning', text: 'The terminal was closed.' });
      this.deps.sessions.update(sessionId, { status: 'interrupted' });
    }
    this.deps.announce(sessionId);
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
