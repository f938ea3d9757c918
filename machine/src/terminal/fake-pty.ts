import type { ExecError, Result } from '@tether/shared-protocol';
import { ok } from '@tether/shared-protocol';
import type { KillSignal, ProcessExit } from '../execution-context.js';
import type { PtyPort, PtyProcess, PtySpawn } from './pty-port.js';

/** PTYs in memory, for tests: each spawn is recorded and driven by hand. */
export class FakePtyPort implements PtyPort {
  readonly spawned: FakePty[] = [];
  private nextPid = 1000;

  spawn(request: PtySpawn): Result<PtyProcess, ExecError<'not-found' | 'io'>> {
    const pty = new FakePty(request, this.nextPid++);
    this.spawned.push(pty);
    return ok(pty);
  }

  get last(): FakePty {
    const pty = this.spawned.at(-1);
    if (!pty) throw new Error('nothing was spawned');
    return pty;
  }
}

/** A program on a fake PTY: the test emits its output, reads its input and ends it. */
export class FakePty implements PtyProcess {
  readonly input: Uint8Array[] = [];
  readonly signals: KillSignal[] = [];
  paused = false;
  /** Bytes the program has not read yet, as `pendingInput` reports them. */
  pending = 0;
  cols: number;
  rows: number;
  exited: ProcessExit | undefined;
  private dataListeners: ((chunk: Uint8Array) => void)[] = [];
  private exitListeners: ((exit: ProcessExit) => void)[] = [];
  /** Output emitted while paused: a real PTY holds it in the kernel until resumed. */
  private held: Uint8Array[] = [];

  constructor(
    readonly request: PtySpawn,
    readonly pid: number,
  ) {
    this.cols = request.cols;
    this.rows = request.rows;
  }

  /** The program writes `data` (a string is UTF-8). */
  emit(data: Uint8Array | string): void {
    const chunk = typeof data === 'string' ? new TextEncoder().encode(data) : data;
    if (this.paused) this.held.push(chunk);
    else for (const listener of this.dataListeners) listener(chunk);
  }

  /** The program ends; held output goes first, as a real PTY drains before it reports the exit. */
  exit(exit: ProcessExit = { code: 0, signal: null }): void {
    this.paused = false;
    this.flush();
    this.exited = exit;
    for (const listener of this.exitListeners) listener(exit);
  }

  inputText(): string {
    return this.input.map((chunk) => new TextDecoder().decode(chunk)).join('');
  }

  onData(listener: (chunk: Uint8Array) => void): void {
    this.dataListeners.push(listener);
  }

  onExit(listener: (exit: ProcessExit) => void): void {
    this.exitListeners.push(listener);
  }

  write(data: Uint8Array): void {
    this.input.push(data);
  }

  pendingInput(): number {
    return this.pending;
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
    this.flush();
  }

  kill(signal: KillSignal): void {
    this.signals.push(signal);
  }

  private flush(): void {
    const held = this.held;
    this.held = [];
    for (const chunk of held) for (const listener of this.dataListeners) listener(chunk);
  }
}
