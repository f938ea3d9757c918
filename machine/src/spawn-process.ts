import type { ChildProcessByStdio } from 'node:child_process';
import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import type { ExecError, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type {
  InputError,
  KillSignal,
  OutputStream,
  ProcessExit,
  ProcessHandle,
  SpawnCommand,
} from './execution-context.js';
import { KILL_GRACE_MS, killGroup } from './process-group.js';

/**
 * Bytes of stdin that may wait for the child to read them. A write beyond it is refused with
 * `busy`: a caller that awaits each write never gets there, one that does not is told to.
 */
export const MAX_PENDING_INPUT_BYTES = 1024 * 1024;
/** Arguments of a program, and bytes of a whole command (program, arguments or shell line): well under Linux's ARG_MAX of 2 MiB. */
export const MAX_ARGS = 4096;
export const MAX_COMMAND_BYTES = 256 * 1024;
/** Environment variables one request may set, and bytes of each value. */
export const MAX_ENV_ADDITIONS = 256;
export const MAX_ENV_VALUE_BYTES = 32 * 1024;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What to run, checked: the file to execute and its arguments. */
export interface Launch {
  file: string;
  args: string[];
}

export function checkLaunch(
  command: SpawnCommand,
  env: Readonly<Record<string, string>> = {},
): Result<Launch, ExecError<'invalid-params'>> {
  const launch: Launch =
    'shell' in command
      ? { file: '/bin/sh', args: ['-c', command.shell] }
      : { file: command.program, args: [...command.args] };
  if (launch.file === '') return execFail('invalid-params', 'the program to run is empty');
  if (launch.args.length > MAX_ARGS) {
    return execFail('invalid-params', `${launch.args.length} arguments; at most ${MAX_ARGS}`);
  }
  const bytes = [launch.file, ...launch.args].reduce((sum, a) => sum + Buffer.byteLength(a), 0);
  if (bytes > MAX_COMMAND_BYTES) {
    return execFail('invalid-params', `the command is ${bytes} bytes; at most ${MAX_COMMAND_BYTES}`);
  }
  if ([launch.file, ...launch.args].some((a) => a.includes('\0'))) {
    return execFail('invalid-params', 'the command contains a NUL character');
  }
  const names = Object.keys(env);
  if (names.length > MAX_ENV_ADDITIONS) {
    return execFail('invalid-params', `${names.length} environment variables; at most ${MAX_ENV_ADDITIONS}`);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name))
      return execFail('invalid-params', `invalid environment variable name ${JSON.stringify(name.slice(0, 100))}`);
    if (value.includes('\0')) return execFail('invalid-params', `the value of ${name} contains a NUL character`);
    if (Buffer.byteLength(value) > MAX_ENV_VALUE_BYTES) {
      return execFail('invalid-params', `the value of ${name} is over ${MAX_ENV_VALUE_BYTES} bytes`);
    }
  }
  return ok(launch);
}

/**
 * Starts `launch` in its own process group. Resolves once the process is running, or with why it
 * could not start (a program that is not there, or not executable).
 */
export function startProcess(
  launch: Launch,
  cwd: string,
  env: NodeJS.ProcessEnv,
  onClose: () => void,
): Promise<Result<ProcessHandle, ExecError<'not-found' | 'io'>>> {
  const child = spawn(launch.file, launch.args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  return new Promise((resolve) => {
    child.once('spawn', () => resolve(ok(new LocalProcess(child, onClose))));
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return; // Started after all: errors after that are the handle's.
      onClose();
      resolve(
        error.code === 'ENOENT'
          ? execFail('not-found', `${launch.file} was not found`)
          : execFail('io', `${launch.file} could not be started: ${error.message}`),
      );
    });
  });
}

type Listener = (stream: OutputStream, chunk: Uint8Array) => void;

class LocalProcess implements ProcessHandle {
  readonly exited: Promise<Result<ProcessExit, ExecError<'unreachable'>>>;
  private readonly listeners = new Set<Listener>();
  private paused = false;
  private killTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, Readable>,
    onClose: () => void,
  ) {
    // Read by hand ('readable' and read()) rather than in flowing mode: Node itself resumes a
    // child's flowing-mode output when the child exits, which would lose what nobody listened to
    // yet and ignore a pause. A stream nobody reads stops reading its pipe at its high-water mark.
    for (const [name, stream] of [
      ['stdout', child.stdout],
      ['stderr', child.stderr],
    ] as const) {
      stream.on('readable', () => this.drain(name, stream));
    }
    // A child that exits or closes its stdin makes writes fail; `write` reports that itself.
    child.stdin.on('error', () => undefined);
    // After the start, only a failed kill or IPC comes here; the group kill does not use either.
    child.on('error', () => undefined);
    // When the process exits, whatever it left running in its group goes too; otherwise a
    // background child holding the output pipes open would keep it from ever closing.
    child.on('exit', () => killGroup(child.pid, 'SIGKILL'));
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => {
        this.closed = true;
        if (this.killTimer) clearTimeout(this.killTimer);
        onClose();
        resolve(ok({ code, signal }));
      });
    });
  }

  onOutput(listener: Listener): () => void {
    this.listeners.add(listener);
    this.flow();
    return () => {
      this.listeners.delete(listener);
      this.flow();
    };
  }

  write(data: Uint8Array | string): Promise<Result<void, InputError>> {
    const stdin = this.child.stdin;
    if (!stdin.writable) return Promise.resolve(execFail('channel-closed', 'the process input is closed'));
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (stdin.writableLength + bytes.length > MAX_PENDING_INPUT_BYTES) {
      return Promise.resolve(
        execFail(
          'busy',
          `${stdin.writableLength} bytes of input wait for the process already; the limit is ${MAX_PENDING_INPUT_BYTES}`,
        ),
      );
    }
    return new Promise((resolve) => {
      stdin.write(bytes, (error) =>
        resolve(
          error ? execFail('channel-closed', `the process no longer reads its input: ${error.message}`) : ok(undefined),
        ),
      );
    });
  }

  closeInput(): void {
    this.child.stdin.end();
  }

  pause(): void {
    this.paused = true;
    this.flow();
  }

  resume(): void {
    this.paused = false;
    this.flow();
  }

  kill(signal: KillSignal = 'SIGTERM'): void {
    if (this.closed) return;
    killGroup(this.child.pid, signal);
    if (signal === 'SIGTERM') {
      this.killTimer ??= setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), KILL_GRACE_MS);
    }
  }

  /** Output flows while someone listens and it is not paused; otherwise the pipe holds the child. */
  private flow(): void {
    this.drain('stdout', this.child.stdout);
    this.drain('stderr', this.child.stderr);
  }

  private drain(name: OutputStream, stream: Readable): void {
    while (this.listeners.size > 0 && !this.paused) {
      const chunk = stream.read() as Buffer | null;
      if (chunk === null) return;
      for (const listener of this.listeners) listener(name, chunk);
    }
  }
}
