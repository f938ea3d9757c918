import { backoffDelay, type Clock, type TimerHandle } from '@tether/shared-protocol';
import type { PushCounters, PushReason } from './push-counters.js';
import type { PushMessage, PushSender, SendOutcome } from './push-sender.js';

/** Messages waiting to be sent (or to be tried again); when full the oldest is dropped: a newer
 * approval matters more than an older one, which a phone may still learn of when it opens. */
export const MAX_QUEUED_PUSHES = 256;
/** Requests in flight at once, to all push services together. */
export const MAX_CONCURRENT_PUSHES = 4;
/** Tries of one message: the first and up to three retries after 429, 5xx or a timeout. */
export const MAX_PUSH_ATTEMPTS = 4;
/** Milliseconds before the first retry; doubled for each next one (1 s, 2 s, 4 s). */
export const PUSH_RETRY_BASE_MS = 1000;
/** Longest wait before a retry (ms), even when a push service asks for more with Retry-After. */
export const PUSH_RETRY_MAX_MS = 30_000;

export interface PushJob {
  /** What the message is about (an approval id): `cancel(key)` drops what is still waiting. */
  key: string;
  deviceId: string;
  message: PushMessage;
  /** Called once, when the first request for it goes out. */
  onSent?: () => void;
}

interface Entry {
  job: PushJob;
  attempts: number;
  /** No retry is worth making after this (ms): the push service would drop it anyway (its TTL). */
  expiresAt: number;
  timer?: TimerHandle;
}

export interface PushDeliveryDeps {
  sender: PushSender;
  clock: Clock;
  counters: PushCounters;
  /** A subscription the push service says is gone (404, 410). */
  onGone: (endpoint: string) => void;
  /** PUSH_RETRY_BASE_MS unless given (tests shorten it). */
  retryBaseMs?: number;
}

/**
 * Sends push messages off the agent's path: `enqueue` returns at once, requests go out a few at a
 * time, 429/5xx/timeouts are tried again with backoff, and every outcome is counted by reason
 * (`push:delivered`, `push:gone`, `push:retry:timeout`, …), which `tether status` shows.
 */
export class PushDelivery {
  private readonly queue: Entry[] = [];
  /** Waiting for a retry. */
  private readonly waiting = new Set<Entry>();
  private inFlight = 0;
  private closed = false;
  /** Resolves when nothing is queued, waiting or in flight (tests and benches wait on it). */
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly deps: PushDeliveryDeps) {}

  enqueue(job: PushJob): void {
    if (this.closed) return;
    if (this.queue.length + this.waiting.size >= MAX_QUEUED_PUSHES) {
      const oldest = this.queue.shift();
      if (oldest) this.count('dropped:queue-full');
      else {
        this.count('dropped:queue-full');
        return;
      }
    }
    const expiresAt = this.deps.clock.now() + job.message.ttlSeconds * 1000;
    this.queue.push({ job, attempts: 0, expiresAt });
    this.pump();
  }

  /** Drops what is still queued or waiting for a retry under `key` (its approval was answered). */
  cancel(key: string): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      if (this.queue[i]!.job.key !== key) continue;
      this.queue.splice(i, 1);
      this.count('cancelled');
    }
    for (const entry of [...this.waiting]) {
      if (entry.job.key !== key) continue;
      if (entry.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
      this.waiting.delete(entry);
      this.count('cancelled');
    }
    this.checkIdle();
  }

  /** Queued, waiting and in flight. */
  get pending(): number {
    return this.queue.length + this.waiting.size + this.inFlight;
  }

  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    for (const entry of this.waiting) if (entry.timer !== undefined) this.deps.clock.clearTimeout(entry.timer);
    this.waiting.clear();
    this.queue.length = 0;
    this.checkIdle();
  }

  private pump(): void {
    while (!this.closed && this.inFlight < MAX_CONCURRENT_PUSHES && this.queue.length > 0) {
      const entry = this.queue.shift()!;
      void this.attempt(entry);
    }
    this.checkIdle();
  }

  private async attempt(entry: Entry): Promise<void> {
    this.inFlight++;
    entry.attempts++;
    if (entry.attempts === 1) entry.job.onSent?.();
    let outcome: SendOutcome;
    try {
      outcome = await this.deps.sender.send(entry.job.message);
    } catch {
      outcome = { kind: 'retry', reason: 'network' };
    }
    this.inFlight--;
    this.settle(entry, outcome);
    this.pump();
  }

  private settle(entry: Entry, outcome: SendOutcome): void {
    switch (outcome.kind) {
      case 'delivered':
        this.count('delivered');
        return;
      case 'gone':
        this.count('gone');
        this.deps.onGone(entry.job.message.subscription.endpoint);
        return;
      case 'rejected':
        this.deps.counters.addRejected(outcome.reason);
        return;
      case 'retry': {
        this.count(`retry:${outcome.reason}`);
        const backoff = backoffDelay(entry.attempts - 1, 0, {
          baseMs: this.deps.retryBaseMs ?? PUSH_RETRY_BASE_MS,
          maxMs: PUSH_RETRY_MAX_MS,
          jitter: 'none',
        });
        const delay = Math.min(PUSH_RETRY_MAX_MS, Math.max(backoff, outcome.retryAfterMs ?? 0));
        if (this.closed || entry.attempts >= MAX_PUSH_ATTEMPTS) return this.count(`failed:${outcome.reason}`);
        if (this.deps.clock.now() + delay >= entry.expiresAt) return this.count('expired');
        this.waiting.add(entry);
        entry.timer = this.deps.clock.setTimeout(() => {
          this.waiting.delete(entry);
          this.queue.push(entry);
          this.pump();
        }, delay);
        return;
      }
    }
  }

  private count(reason: PushReason): void {
    this.deps.counters.add(`push:${reason}`);
  }

  private checkIdle(): void {
    if (this.pending > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
