import type { ProcessHandle } from '@tether/machine';
import { ok } from '@tether/shared-protocol';

type Listener = Parameters<ProcessHandle['onOutput']>[0];
type Exited = Awaited<ProcessHandle['exited']>;

/**
 * A process that runs nothing, for the ACP fuzzer: what the fuzzer `emit`s is its stdout, what
 * is written to its stdin goes to `onInput`, and it ends when killed or told to `exit`. Output
 * emitted before a listener is attached is held, as a pipe would hold it.
 */
export class FuzzProcess implements ProcessHandle {
  readonly exited: Promise<Exited>;
  onInput: ((chunk: Uint8Array) => void) | undefined;
  inputClosed = false;
  private readonly listeners = new Set<Listener>();
  private held: Uint8Array[] = [];
  private done!: (exit: Exited) => void;
  private ended = false;

  constructor() {
    this.exited = new Promise((resolve) => (this.done = resolve));
  }

  get isEnded(): boolean {
    return this.ended;
  }

  onOutput(listener: Listener): () => void {
    this.listeners.add(listener);
    const held = this.held;
    this.held = [];
    for (const chunk of held) listener('stdout', chunk);
    return () => this.listeners.delete(listener);
  }

  /** The process writes `chunk` to its stdout. */
  emit(chunk: Uint8Array): void {
    if (this.ended) return;
    if (this.listeners.size === 0) this.held.push(chunk);
    else for (const listener of this.listeners) listener('stdout', chunk);
  }

  write(data: Uint8Array | string): Promise<Awaited<ReturnType<ProcessHandle['write']>>> {
    if (!this.ended && !this.inputClosed) {
      this.onInput?.(typeof data === 'string' ? new TextEncoder().encode(data) : data);
    }
    return Promise.resolve(ok(undefined));
  }

  closeInput(): void {
    this.inputClosed = true;
  }

  pause(): void {}

  resume(): void {}

  kill(): void {
    this.exit(null, 'SIGTERM');
  }

  exit(code: number | null = 0, signal: string | null = null): void {
    if (this.ended) return;
    this.ended = true;
    this.done(ok({ code, signal }));
  }
}
