import { accessSync, constants as fsConstants } from 'node:fs';
import { constants } from 'node:os';
import type { IPty } from 'node-pty';
import { spawn } from 'node-pty';
import type { ExecError, Result } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type { KillSignal, ProcessExit } from '../execution-context.js';
import type { PtyPort, PtyProcess, PtySpawn } from './pty-port.js';

/** PTYs of this computer, through node-pty. */
export class NodePtyPort implements PtyPort {
  spawn(request: PtySpawn): Result<PtyProcess, ExecError<'not-found' | 'io'>> {
    // node-pty forks before it execs, so a missing program would only show as an exit code.
    try {
      accessSync(request.file, fsConstants.X_OK);
    } catch {
      return execFail('not-found', `${request.file} is not an executable program`);
    }
    try {
      const pty = spawn(request.file, [...request.args], {
        name: request.env.TERM ?? 'xterm-256color',
        cols: request.cols,
        rows: request.rows,
        cwd: request.cwd,
        env: { ...request.env },
        // Raw bytes: offsets count bytes, and a UTF-8 character split across reads stays whole.
        encoding: null,
      });
      return ok(new NodePtyProcess(pty));
    } catch (error) {
      return execFail(
        'io',
        `${request.file} could not be started: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * node-pty 1.1.0 queues input in `_writeStream._writeQueue` and writes it as the PTY takes it,
 * without a bound or a public size. The queue is read here (a pinned version, and a test that
 * fails if it moves) so that input to a program that does not read it can be refused.
 */
interface WriteQueueInternals {
  _writeStream?: { _writeQueue?: { buffer: Uint8Array; offset: number }[] };
}

class NodePtyProcess implements PtyProcess {
  constructor(private readonly pty: IPty) {}

  get pid(): number {
    return this.pty.pid;
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    // With `encoding: null` node-pty hands over Buffers, though its types say string.
    this.pty.onData((data: string | Uint8Array) => listener(typeof data === 'string' ? Buffer.from(data) : data));
  }

  onExit(listener: (exit: ProcessExit) => void): void {
    this.pty.onExit(({ exitCode, signal }) => {
      // Input the program never read goes with it (node-pty would retry it on a closed descriptor).
      this.writeQueue().length = 0;
      listener({ code: signal ? null : exitCode, signal: signal ? signalName(signal) : null });
    });
  }

  write(data: Uint8Array): void {
    this.pty.write(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  }

  pendingInput(): number {
    return this.writeQueue().reduce((sum, task) => sum + task.buffer.byteLength - task.offset, 0);
  }

  private writeQueue(): { buffer: Uint8Array; offset: number }[] {
    return (this.pty as unknown as WriteQueueInternals)._writeStream?._writeQueue ?? [];
  }

  resize(cols: number, rows: number): void {
    try {
      this.pty.resize(cols, rows);
    } catch {
      // The PTY is already closed: the exit is on its way.
    }
  }

  pause(): void {
    this.pty.pause();
  }

  resume(): void {
    this.pty.resume();
  }

  kill(signal: KillSignal): void {
    // A program being hung up or killed reads no more input; dropping it here also keeps node-pty
    // from retrying it on the descriptor that is about to close.
    if (signal === 'SIGHUP' || signal === 'SIGKILL') this.writeQueue().length = 0;
    try {
      this.pty.kill(signal);
    } catch {
      // Already gone.
    }
  }
}

function signalName(signal: number): string {
  const name = Object.entries(constants.signals).find(([, n]) => n === signal)?.[0];
  return name ?? `signal ${signal}`;
}
