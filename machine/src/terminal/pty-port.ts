import type { ExecError, Result } from '@tether/shared-protocol';
import type { KillSignal, ProcessExit } from '../execution-context.js';

/**
 * The seam between a terminal and the operating system's pseudo-terminals: `node-pty` in
 * production (node-pty-port.ts), an in-memory fake in tests (fake-pty.ts). Everything above it
 * (backlog, screen, flow control) is plain code that tests drive without a real PTY.
 */
export interface PtyPort {
  /** Starts `file` on a new PTY; `not-found`/`io` when it cannot be started. */
  spawn(request: PtySpawn): Result<PtyProcess, ExecError<'not-found' | 'io'>>;
}

export interface PtySpawn {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Readonly<Record<string, string>>;
  cols: number;
  rows: number;
}

/** One process on a PTY. Output is raw bytes (never decoded here), so offsets are byte offsets. */
export interface PtyProcess {
  readonly pid: number;
  /** Output, in order. Stops while paused: the kernel's buffer then holds the program back. */
  onData(listener: (chunk: Uint8Array) => void): void;
  /** Once, after the last output. */
  onExit(listener: (exit: ProcessExit) => void): void;
  /** Queues input for the program; never blocks. */
  write(data: Uint8Array): void;
  /** Bytes written and not yet taken by the PTY (the program is not reading its input). */
  pendingInput(): number;
  resize(cols: number, rows: number): void;
  pause(): void;
  resume(): void;
  kill(signal: KillSignal): void;
}
