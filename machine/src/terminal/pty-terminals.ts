import { stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { isAbsolute } from 'node:path';
import type { Clock, ExecError, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import { resolveInside } from '../confine.js';
import { commandEnvironment } from '../process-group.js';
import type { PtyPort } from './pty-port.js';
import type { TerminalHandle } from './terminal.js';
import { Terminal } from './terminal.js';

/** Terminals one place keeps open at once: 32, far more than a person follows, and with their
 * backlogs and screens well under 32 MiB. One more is refused with `busy`. */
export const MAX_TERMINALS = 32;

export interface OpenTerminalRequest {
  /** The folder to start in: absolute, or relative to the first root; the first root when absent. */
  cwd?: string;
  cols: number;
  rows: number;
}

/** A program of the person's choosing (`tether run`), started directly rather than in a shell. */
export interface RunProgramRequest {
  /** The program (an absolute path) and its arguments. */
  command: readonly string[];
  /** The folder to start in, under the roots like any terminal's. */
  cwd: string;
  /** The environment the person runs it with (their own, from the command line they ran it on). */
  env: Readonly<Record<string, string | undefined>>;
  cols: number;
  rows: number;
}

export type OpenTerminalError = ExecError<
  'outside-root' | 'not-found' | 'not-a-folder' | 'io' | 'busy' | 'unreachable'
>;

/**
 * Where terminals open: this computer (PtyTerminals), or a machine over its link. The host's
 * terminal manager sees only this port, so a place is a drop-in.
 */
export interface TerminalPlace {
  /** `local`, or the machine's name. */
  readonly place: string;
  open(request: OpenTerminalRequest): Promise<Result<TerminalHandle, OpenTerminalError>>;
}

export interface PtyTerminalsOptions {
  pty: PtyPort;
  /** Folders a terminal may start in (the same ones sessions are confined to). */
  roots: readonly string[];
  clock: Clock;
  /** The environment shells start from; the host's credentials are taken out of it. */
  env?: NodeJS.ProcessEnv;
  /** The shell to run; by default the user's login shell ($SHELL, else the password entry). */
  shell?: string;
  maxTerminals?: number;
}

/**
 * Terminals on this computer's PTYs: the user's login shell in a folder under the roots (by real
 * path, like every file a session touches), with the host's credentials out of its environment.
 */
export class PtyTerminals implements TerminalPlace {
  readonly place = 'local';
  private live = 0;

  constructor(private readonly options: PtyTerminalsOptions) {}

  async open(request: OpenTerminalRequest): Promise<Result<TerminalHandle, OpenTerminalError>> {
    const env = this.options.env ?? process.env;
    const shell = this.options.shell ?? loginShell(env);
    return this.start({ ...request, file: shell, args: ['-l'], env: shellEnvironment(env) });
  }

  /**
   * Runs a program the person named, with the environment they ran `tether run` in: their own
   * keys stay (the program is theirs, as if started in their own terminal), Tether's are taken out.
   */
  async run(request: RunProgramRequest): Promise<Result<TerminalHandle, OpenTerminalError>> {
    const [file, ...args] = request.command;
    if (file === undefined || !isAbsolute(file)) return execFail('not-found', 'the program must be an absolute path');
    const env = Object.fromEntries(Object.entries(request.env).filter(([name]) => !name.startsWith('TETHER_')));
    return this.start({
      cwd: request.cwd,
      cols: request.cols,
      rows: request.rows,
      file,
      args,
      env: terminalEnvironment(env),
    });
  }

  private async start(
    request: { file: string; args: readonly string[]; env: Record<string, string> } & OpenTerminalRequest,
  ): Promise<Result<TerminalHandle, OpenTerminalError>> {
    const max = this.options.maxTerminals ?? MAX_TERMINALS;
    if (this.live >= max) return execFail('busy', `${max} terminals are open already; close one first`);
    const folder = await this.folder(request.cwd);
    if (!folder.ok) return folder;
    const spawned = this.options.pty.spawn({
      file: request.file,
      args: request.args,
      cwd: folder.value,
      env: request.env,
      cols: request.cols,
      rows: request.rows,
    });
    if (!spawned.ok) return spawned.error.code === 'not-found' ? execFail('io', spawned.error.message) : spawned;
    const terminal = new Terminal(spawned.value, {
      shell: request.file,
      cwd: folder.value,
      cols: request.cols,
      rows: request.rows,
      clock: this.options.clock,
    });
    this.live++;
    terminal.onExit(() => this.live--);
    return ok(terminal);
  }

  private async folder(cwd: string | undefined): Promise<Result<string, OpenTerminalError>> {
    const [first] = this.options.roots;
    if (first === undefined) return execFail('outside-root', 'no folder is shared for terminals');
    const requested = cwd ?? first;
    for (const root of this.options.roots) {
      const inside = await resolveInside(root, requested);
      if (!inside.ok) continue;
      try {
        const info = await stat(inside.value);
        return info.isDirectory() ? ok(inside.value) : execFail('not-a-folder', `${requested} is not a folder`);
      } catch {
        return execFail('not-found', `${requested} does not exist`);
      }
    }
    return execFail('outside-root', `${requested} is not under a folder this computer shares`);
  }
}

/** The user's login shell: $SHELL, else the password entry, else /bin/sh. */
export function loginShell(env: NodeJS.ProcessEnv): string {
  if (env.SHELL) return env.SHELL;
  try {
    return userInfo().shell ?? '/bin/sh';
  } catch {
    return '/bin/sh';
  }
}

/** A terminal shell's environment: `env` with this computer's credentials taken out, and a
 * terminal type the app's emulator speaks. */
export function shellEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return terminalEnvironment(commandEnvironment(env));
}

/** `env` with a terminal type the app's emulator speaks. */
function terminalEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined) out[key] = value;
  }
  out.TERM = 'xterm-256color';
  out.COLORTERM = 'truecolor';
  out.LANG ??= 'C.UTF-8';
  return out;
}
