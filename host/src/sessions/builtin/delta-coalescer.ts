import type { Clock, TimerHandle } from '@tether/shared-protocol';

/** Milliseconds between `message.delta` events of one message: at most four a second, so a fast
 * model does not become thousands of events (and database rows, and frames to every phone). */
export const DELTA_INTERVAL_MS = 250;

/** Gathers streamed text and hands it on in pieces no more often than every `intervalMs`. */
export class DeltaCoalescer {
  private buffer = '';
  private lastEmit = -Infinity;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly emit: (text: string) => void,
    private readonly intervalMs = DELTA_INTERVAL_MS,
  ) {}

  push(text: string): void {
    if (text === '') return;
    this.buffer += text;
    if (this.timer !== undefined) return;
    const wait = this.lastEmit + this.intervalMs - this.clock.now();
    if (wait <= 0) this.flush();
    else this.timer = this.clock.setTimeout(() => this.flush(), wait);
  }

  /** Emits what is buffered now (the message ended, or was interrupted). */
  flush(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    this.lastEmit = this.clock.now();
    this.emit(text);
  }
}
