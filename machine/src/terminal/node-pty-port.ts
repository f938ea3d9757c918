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

/** Bytes of PTY output gathered before they are handed on at once: 32 KiB, two of a terminal's
 * 16 KiB messages, and half the screen's MAX_SCREEN_LAG_BYTES so one batch never pauses it. */
export const MAX_GATHERED_PTY_BYTES = 32 * 1024;
/** Milliseconds output is gathered for while it keeps coming: 1, the shortest timer. A PTY gives
 * a few KiB per read, one read per turn of the event loop; during a flood this turns hundreds of
 * small pieces into a few large ones, while the first output after a quiet spell (the echo of a
 * keystroke) goes on at the end of the turn it was read in. */
export const PTY_GATHER_MS = 1;

class NodePtyProcess implements PtyProcess {
  private readonly dataListeners: ((chunk: Uint8Array) => void)[] = [];
  /** Output read in this turn of the event loop, not yet handed on. */
  private gathered: Uint8Array[] = [];
  private gatheredBytes = 0;
  private flushScheduled = false;
  /** When output was last handed on (performance.now(), ms): output within PTY_GATHER_MS of it is a flood. */
  private lastFlush = -Infinity;

  constructor(private readonly pty: IPty) {}

  get pid(): number {
    return this.pty.pid;
  }

  /**
   * Output, gathered per turn of the event loop: the reads of one turn (a few KiB each) are handed
   * on together once the turn's I/O is done (`setImmediate`), so a flood costs one backlog write,
   * one screen write and one stream pump per turn instead of per read, and a keystroke's echo
   * waits for nothing but the end of the turn it was read in.
   */
  onData(listener: (chunk: Uint8Array) => void): void {
    this.dataListeners.push(listener);
    if (this.dataListeners.length > 1) return;
    // With `encoding: null` node-pty hands over Buffers, though its types say string.
    this.pty.onData((data: string | Uint8Array) => this.gather(typeof data === 'string' ? Buffer.from(data) : data));
  }

  private gather(chunk: Uint8Array): void {
    this.gathered.push(chunk);
    this.gatheredBytes += chunk.length;
    if (this.gatheredBytes >= MAX_GATHERED_PTY_BYTES) return this.flush();
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    const scheduled = () => {
      this.flushScheduled = false;
      this.flush();
    };
    if (performance.now() - this.lastFlush < PTY_GATHER_MS) setTimeout(scheduled, PTY_GATHER_MS);
    else setImmediate(scheduled);
  }

  private flush(): void {
    if (this.gatheredBytes === 0) return;
    this.lastFlush = performance.now();
    const data = this.gathered.length === 1 ? this.gathered[0]! : Buffer.concat(this.gathered, this.gatheredBytes);
    this.gathered = [];
    this.gatheredBytes = 0;
    for (const listener of this.dataListeners) listener(data);
  }

  onExit(listener: (exit: ProcessExit) => void): void {
    this.pty.onExit(({ exitCode, signal }) => {
      // The exit comes after the last output.
      this.flush();
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
