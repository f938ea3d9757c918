import type {
  Clock,
  ErrorCode,
  MachineMethodName,
  MachineParams,
  MachineResult,
  Result,
  TimerHandle,
} from '@tether/shared-protocol';
import { MACHINE_METHODS, fail, ok } from '@tether/shared-protocol';
import * as v from 'valibot';
import type { MachineLink } from './machine-link.js';

export interface CallOptions {
  /** Wait while the machine is offline (a session's run does); otherwise `unreachable` at once. */
  wait: boolean;
  /** An interrupt: a call still waiting is dropped unsent. */
  signal?: AbortSignal;
  /** The call starts waiting for the machine (said once per call). */
  onWaiting?: () => void;
  /** A call that waited is being sent: the machine is back. */
  onResumed?: () => void;
}

/** Why a call that was never sent was not: an interrupt, or the host stopping. */
export const NOT_SENT_INTERRUPTED = 'not sent: the run was interrupted while it waited for the machine';

/**
 * The host's way to one machine, across its links. Calls go through `call`, typed by the method
 * table (MACHINE_METHODS): params as the method's schema wants them, and a reply decoded by its
 * result schema (one that does not match fails with `io`). `call` carries the offline rules
 * (docs/machines.md, "Offline"):
 *
 * - offline before the call is sent: it waits (nothing was sent, so sending later is safe), up to
 *   `waitMs` from when it started waiting, then fails `unreachable` ("stayed offline");
 * - sent, and the link drops before the reply: it may have run, so it fails with `io` ("result
 *   lost", which the model sees as the tool's result), unless its method is idempotent (reads,
 *   listings, checks), which is sent again once the machine is back, like an unsent call;
 * - an interrupt while waiting drops it unsent;
 * - the host stopping fails every waiting call at once.
 */
export class MachineChannel {
  private link_: MachineLink | undefined;
  private readonly waiters = new Set<() => void>();
  private readonly eventListeners = new Set<(event: unknown) => void>();
  private readonly linkListeners = new Set<(online: boolean) => void>();
  private closed = false;
  /** Bumped for each new link: a process started on an older one is gone. */
  generation = 0;
  /** The machine's home folder as it said when it last registered (RegisterParams.home). */
  home: string | undefined;

  constructor(
    readonly id: string,
    public name: string,
    private readonly clock: Clock,
    private readonly waitMs: number,
  ) {}

  get online(): boolean {
    return this.link_ !== undefined && !this.link_.closed;
  }

  get link(): MachineLink | undefined {
    return this.online ? this.link_ : undefined;
  }

  /** A machine registered: the new link replaces any old one, and waiting calls go out. */
  attach(link: MachineLink): void {
    const old = this.link_;
    this.link_ = link;
    this.generation++;
    if (old && !old.closed) old.close('conflict', 'the machine linked again; this older link is replaced');
    link.onEvent((event) => {
      if (this.link_ === link) for (const listener of this.eventListeners) listener(event);
    });
    link.onClose(() => {
      if (this.link_ !== link) return;
      this.link_ = undefined;
      for (const listener of this.linkListeners) listener(false);
    });
    for (const listener of this.linkListeners) listener(true);
    this.wakeWaiters();
  }

  /** Drops the live link (a revoked token, a forgotten machine), with a sealed reason. */
  drop(code: ErrorCode, message: string): boolean {
    const link = this.link_;
    if (!link || link.closed) return false;
    link.close(code, message);
    return true;
  }

  onEvent(listener: (event: unknown) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  /** Told `true` when a link comes up, `false` when it drops. */
  onLink(listener: (online: boolean) => void): () => void {
    this.linkListeners.add(listener);
    return () => this.linkListeners.delete(listener);
  }

  /** Sends an event on the live link; false when there is none. */
  notify(event: unknown): boolean {
    return this.link?.notify(event) ?? false;
  }

  /** The host is stopping (or forgot the machine): every waiting call fails now. */
  close(): void {
    this.closed = true;
    this.wakeWaiters();
  }

  async call<M extends MachineMethodName>(
    method: M,
    params: MachineParams<M>,
    options: CallOptions,
  ): Promise<Result<MachineResult<M>>> {
    const result = await this.send(method, params, options);
    if (!result.ok) return result;
    const parsed = v.safeParse(MACHINE_METHODS[method].result, result.value);
    if (!parsed.success) return fail('io', `${this.name} answered ${method} with something else`);
    return ok(parsed.output as MachineResult<M>);
  }

  private async send(method: MachineMethodName, params: unknown, options: CallOptions): Promise<Result<unknown>> {
    const idempotent = MACHINE_METHODS[method].idempotent;
    let deadline: number | undefined;
    let waited = false;
    for (;;) {
      if (options.signal?.aborted) return fail('unreachable', NOT_SENT_INTERRUPTED);
      if (this.closed) return fail('unreachable', `${this.name} is no longer served by this host`);
      const link = this.link;
      if (!link) {
        if (!options.wait) return fail('unreachable', `${this.name} is offline`);
        deadline ??= this.clock.now() + this.waitMs;
        if (!waited) {
          waited = true;
          options.onWaiting?.();
        }
        const woke = await this.waitOnline(deadline, options.signal);
        if (woke === 'timeout') {
          return fail('unreachable', `${this.name} stayed offline for ${describeWait(this.waitMs)}; the run stopped`);
        }
        continue;
      }
      if (waited) {
        waited = false;
        options.onResumed?.();
      }
      const result = await link.request(method, params);
      if (result.ok || result.error.code !== 'disconnected') return result;
      // Sent, and the link dropped before the reply: it may have run. The model is told (it is
      // a tool error, not the end of the run) and decides; a read is simply asked again.
      if (idempotent) continue;
      return fail(
        'io',
        `result lost: ${this.name} disconnected during the call, so whether it took effect is not known`,
      );
    }
  }

  private waitOnline(deadline: number, signal: AbortSignal | undefined): Promise<'woken' | 'timeout'> {
    return new Promise((resolve) => {
      const finish = (how: 'woken' | 'timeout') => {
        this.waiters.delete(wake);
        this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        resolve(how);
      };
      const wake = () => finish('woken');
      this.waiters.add(wake);
      signal?.addEventListener('abort', wake, { once: true });
      const timer: TimerHandle = this.clock.setTimeout(
        () => finish('timeout'),
        Math.max(0, deadline - this.clock.now()),
      );
    });
  }

  private wakeWaiters(): void {
    for (const wake of [...this.waiters]) wake();
  }
}

/** "15 min", "90 s": how long a wait lasted, for notices. */
export function describeWait(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}
