import type { Clock, Result, TimerHandle } from '@tether/shared-protocol';
import { execFail, ok } from '@tether/shared-protocol';
import type { InputError, ProcessExit } from '../execution-context.js';
import { KILL_GRACE_MS } from '../process-group.js';
import type { PtyProcess } from './pty-port.js';
import type { OutputChunk } from './terminal-backlog.js';
import { TerminalBacklog } from './terminal-backlog.js';
import type { ScreenSnapshot } from './terminal-screen.js';
import { TerminalScreen } from './terminal-screen.js';

/** Bytes of input that may wait for a program that is not reading it: 1 MiB, a large paste.
 * More is refused with `busy` rather than queued without bound. */
export const MAX_PENDING_TERMINAL_INPUT = 1024 * 1024;

/** Someone reading a terminal's output at their own pace (a device's stream). */
export interface OutputReader {
  /** New output, or the exit, is there to read. */
  notify(): void;
}

/**
 * One terminal, wherever it runs: the host reads and steers it through this, and a machine
 * serves the same over its link. Output is a byte stream addressed by absolute offset, kept in a
 * bounded backlog; readers that fall behind pause the program rather than grow memory.
 */
export interface TerminalHandle {
  readonly shell: string;
  readonly cwd: string;
  readonly cols: number;
  readonly rows: number;
  /** The oldest output offset still held, and the offset one past the newest. */
  readonly start: number;
  readonly end: number;
  /** How the program ended, once it has. */
  readonly exit: ProcessExit | undefined;
  read(offset: number, maxBytes: number): OutputChunk | undefined;
  addReader(reader: OutputReader): void;
  /** A blocked reader pauses the program until it unblocks or is released. */
  setBlocked(reader: OutputReader, blocked: boolean): void;
  release(reader: OutputReader): void;
  /** The current screen, for a reader whose offset is no longer held. */
  snapshot(): ScreenSnapshot;
  /** The visible screen as plain text, a line per row (to spot a program waiting at a question). */
  screenLines(): string[];
  write(data: string): Result<void, InputError>;
  resize(cols: number, rows: number): void;
  onExit(listener: (exit: ProcessExit) => void): () => void;
  /** Hangs up the program (SIGHUP, then SIGKILL after a grace period) and frees the screen. */
  close(): void;
}

export interface TerminalOptions {
  shell: string;
  cwd: string;
  cols: number;
  rows: number;
  clock: Clock;
  backlogBytes?: number;
}

/**
 * A terminal on a PTY of this computer. The program is paused while any reader is blocked (the
 * slowest attached device sets the pace) or while the screen model is too far behind; it runs
 * freely with nobody attached, its output going to the backlog and the screen, like a detached
 * tmux session.
 */
export class Terminal implements TerminalHandle {
  readonly shell: string;
  readonly cwd: string;
  private size: { cols: number; rows: number };
  private readonly backlog: TerminalBacklog;
  private readonly screen: TerminalScreen;
  private readonly readers = new Set<OutputReader>();
  private readonly blocked = new Set<OutputReader>();
  private readonly exitListeners = new Set<(exit: ProcessExit) => void>();
  private exitValue: ProcessExit | undefined;
  private paused = false;
  private closed = false;
  private killTimer: TimerHandle | undefined;

  constructor(
    private readonly pty: PtyProcess,
    private readonly options: TerminalOptions,
  ) {
    this.shell = options.shell;
    this.cwd = options.cwd;
    this.size = { cols: options.cols, rows: options.rows };
    this.backlog = new TerminalBacklog(options.backlogBytes);
    this.screen = new TerminalScreen(options.cols, options.rows, () => this.updateFlow());
    pty.onData((chunk) => this.output(chunk));
    pty.onExit((exit) => this.exited(exit));
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  get start(): number {
    return this.backlog.start;
  }

  get end(): number {
    return this.backlog.end;
  }

  get exit(): ProcessExit | undefined {
    return this.exitValue;
  }

  /** Whether the program is held back now (tests and figures). */
  get isPaused(): boolean {
    return this.paused;
  }

  read(offset: number, maxBytes: number): OutputChunk | undefined {
    return this.backlog.read(offset, maxBytes);
  }

  addReader(reader: OutputReader): void {
    this.readers.add(reader);
  }

  setBlocked(reader: OutputReader, blocked: boolean): void {
    if (blocked && this.readers.has(reader)) this.blocked.add(reader);
    else this.blocked.delete(reader);
    this.updateFlow();
  }

  release(reader: OutputReader): void {
    this.readers.delete(reader);
    this.blocked.delete(reader);
    this.updateFlow();
  }

  snapshot(): ScreenSnapshot {
    return this.screen.snapshot();
  }

  screenLines(): string[] {
    return this.screen.lines();
  }

  /** Resolves once the screen has parsed all output so far. */
  settled(): Promise<void> {
    return this.screen.settled();
  }

  write(data: string): Result<void, InputError> {
    if (this.exitValue || this.closed) return execFail('channel-closed', 'the terminal has ended');
    const bytes = new TextEncoder().encode(data);
    const pending = this.pty.pendingInput();
    if (pending + bytes.length > MAX_PENDING_TERMINAL_INPUT) {
      return execFail(
        'busy',
        `${pending} bytes of input wait for the program already; the limit is ${MAX_PENDING_TERMINAL_INPUT}`,
      );
    }
    this.pty.write(bytes);
    return ok(undefined);
  }

  resize(cols: number, rows: number): void {
    if (this.exitValue || this.closed) return;
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.size = { cols, rows };
    this.pty.resize(cols, rows);
    this.screen.resize(cols, rows);
  }

  onExit(listener: (exit: ProcessExit) => void): () => void {
    if (this.exitValue) {
      listener(this.exitValue);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.exitValue) {
      // The shell passes a hangup on to its jobs, as when a terminal window is closed.
      this.pty.kill('SIGHUP');
      this.killTimer = this.options.clock.setTimeout(() => this.pty.kill('SIGKILL'), KILL_GRACE_MS);
    }
    this.screen.dispose();
    this.readers.clear();
    this.blocked.clear();
    this.updateFlow();
  }

  private output(chunk: Uint8Array): void {
    this.backlog.append(chunk);
    this.screen.write(chunk);
    this.updateFlow();
    for (const reader of [...this.readers]) reader.notify();
  }

  private exited(exit: ProcessExit): void {
    if (this.exitValue) return;
    this.exitValue = exit;
    if (this.killTimer !== undefined) this.options.clock.clearTimeout(this.killTimer);
    for (const listener of [...this.exitListeners]) listener(exit);
    this.exitListeners.clear();
    for (const reader of [...this.readers]) reader.notify();
  }

  private updateFlow(): void {
    const pause = !this.exitValue && !this.closed && (this.blocked.size > 0 || this.screen.behind);
    if (pause === this.paused) return;
    this.paused = pause;
    if (pause) this.pty.pause();
    else this.pty.resume();
  }
}
