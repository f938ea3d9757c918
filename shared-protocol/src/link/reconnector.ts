import type { Clock, TimerHandle } from '../clock.js';
import type { ProtocolError } from '../errors.js';
import type { RandomBytes } from '../random.js';
import type { BackoffOptions } from './backoff.js';
import { DEFAULT_BACKOFF, backoffDelay } from './backoff.js';

/**
 * Where a kept link stands: never dialled, dialling (transport and handshake), open, waiting out
 * a backoff before the next dial, or stopped (by its owner, or refused for good) and not dialling
 * again.
 */
export type ReconnectPhase = 'idle' | 'connecting' | 'open' | 'waiting' | 'stopped';

/**
 * The states every kept link reports on its way round the loop; each owner adds its open state
 * and how it ends (stopped, refused) with names of its own.
 */
export type ReconnectState =
  | { name: 'idle' }
  | { name: 'connecting'; attempt: number }
  | { name: 'waiting'; attempt: number; retryAt: number; error: ProtocolError };

/** The wait `retry` armed: which attempt failed, how long the wait is (ms), when it ends (epoch ms). */
export interface RetryPlan {
  attempt: number;
  delayMs: number;
  retryAt: number;
}

export interface ReconnectorOptions {
  clock: Clock;
  /** A number in [0, 1) for each delay; see `jitterFrom`. */
  jitter: () => number;
  backoff?: BackoffOptions;
  /**
   * Milliseconds a link must stay open for its failures to be forgotten. Without it, opening is
   * enough; with it, a link that drops sooner (a peer that closes or redirects it right after
   * accepting it) counts as one more failure, so a peer cannot make the owner dial in a tight loop.
   */
  stableMs?: number;
}

/** Jitter from random bytes: one byte a draw, so steps of 1/256. */
export function jitterFrom(random: RandomBytes): () => number {
  return () => random(1)[0]! / 256;
}

/**
 * The reconnect loop every kept link shares (a device's link to its host, the host's link to a
 * relay, a machine's link to its host): it counts failed attempts since the last open link and
 * waits a jittered exponential backoff (`backoffDelay`) on the injected clock before the next
 * dial. One wait at a time: a new `retry` replaces the one armed. The owner dials, says when the
 * link opened, and decides what is refused for good; this holds the count, the phase and the timer.
 */
export class Reconnector {
  private phaseValue: ReconnectPhase = 'idle';
  private attempts = 0;
  private timer: TimerHandle | undefined;
  private due: (() => void) | undefined;
  private openedAt = 0;

  constructor(private readonly options: ReconnectorOptions) {}

  get phase(): ReconnectPhase {
    return this.phaseValue;
  }

  /** Failed attempts since the link was last open: the next wait's step. */
  get attempt(): number {
    return this.attempts;
  }

  /** A dial starts; returns its attempt number. A link that had stayed open `stableMs` (the owner
   * moving on at once, to another server) forgets the failures before it, as `retry` does. */
  dialling(): number {
    if (this.stable) this.attempts = 0;
    this.clearTimer();
    this.phaseValue = 'connecting';
    return this.attempts;
  }

  /** The link opened: the next failure waits the shortest step again (with `stableMs`, once the
   * link has stayed open that long). */
  opened(): void {
    this.phaseValue = 'open';
    this.openedAt = this.options.clock.now();
    if (this.options.stableMs === undefined) this.attempts = 0;
  }

  /** Whether the link is open and has stayed open `stableMs` (always, once open, without it). */
  get stable(): boolean {
    if (this.phaseValue !== 'open') return false;
    return this.options.clock.now() - this.openedAt >= (this.options.stableMs ?? 0);
  }

  /** Forgets the failures so far (a fresh start, or a drop of a link that had opened). */
  reset(): void {
    this.attempts = 0;
  }

  /**
   * The link failed or dropped: waits out the backoff (at least `atLeastMs`), then calls `redial`
   * (unless stopped or woken before). Returns the wait, for the owner's state; undefined when stopped.
   */
  retry(redial: () => void, atLeastMs = 0): RetryPlan | undefined {
    if (this.phaseValue === 'stopped') return undefined;
    if (this.stable) this.attempts = 0;
    this.clearTimer();
    const backoff = backoffDelay(this.attempts, this.options.jitter(), this.options.backoff ?? DEFAULT_BACKOFF);
    const delayMs = Math.max(backoff, atLeastMs);
    const plan = { attempt: this.attempts, delayMs, retryAt: this.options.clock.now() + delayMs };
    this.attempts++;
    this.phaseValue = 'waiting';
    this.due = redial;
    this.timer = this.options.clock.setTimeout(() => this.fire(), delayMs);
    return plan;
  }

  /** Ends a wait at once (back online, back in front, stopping a loop): true when there was one. */
  wake(): boolean {
    if (this.phaseValue !== 'waiting' || !this.due) return false;
    this.fire();
    return true;
  }

  /** Stops for good: no wait fires; `dialling` starts again from here if the owner wants. */
  stop(): void {
    this.clearTimer();
    this.phaseValue = 'stopped';
  }

  private fire(): void {
    const due = this.due;
    this.clearTimer();
    due?.();
  }

  private clearTimer(): void {
    if (this.timer !== undefined) this.options.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.due = undefined;
  }
}
