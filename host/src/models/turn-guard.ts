import type { Clock, TimerHandle } from '@tether/shared-protocol';
import { abortedFailure } from './provider-failure.js';
import { ProviderError } from './types.js';

/**
 * How long a provider waits for the API's next bytes before it gives the turn up as a dead
 * connection, in milliseconds. Only time spent waiting on the API counts, never time the loop
 * spends handling an event. Long because a reasoning model may think for minutes before its
 * first token (Anthropic sends pings meanwhile; OpenAI-style servers may send nothing), and a
 * cut that the OS notices ends the turn at once anyway: this is for a silently dead peer.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60_000;

/**
 * One turn's cancellation: the signal given to the SDK aborts when the request's signal does,
 * when the API stays silent past the idle timeout, or when the turn is disposed (so a consumer
 * that stops early never leaves a connection open).
 */
export class TurnGuard {
  private readonly controller = new AbortController();
  private timer: TimerHandle | undefined;
  private idle = false;
  private readonly onAbort = (): void => this.controller.abort();

  constructor(
    private readonly api: string,
    private readonly requestSignal: AbortSignal,
    private readonly idleTimeoutMs: number,
    private readonly clock: Clock,
  ) {
    if (requestSignal.aborted) this.controller.abort();
    else requestSignal.addEventListener('abort', this.onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts the idle timer: call before waiting on the API. */
  arm(): void {
    this.disarm();
    this.timer = this.clock.setTimeout(() => {
      this.idle = true;
      this.controller.abort();
    }, this.idleTimeoutMs);
  }

  /** Stops the idle timer: call once the API answered. */
  disarm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Why the turn was stopped from our side, if it was: the SDKs end a stream silently (or with
   * their own abort error) when its signal fires, so this is checked after every failure and
   * after the stream ends. The user's abort wins over an idle timeout that fired at the same time.
   */
  stopError(): ProviderError | undefined {
    if (this.requestSignal.aborted) return abortedFailure(this.api);
    if (this.idle) {
      const seconds = Math.round(this.idleTimeoutMs / 1000);
      return new ProviderError(`${this.api} sent nothing for ${seconds} s; giving up on the connection`, 'network');
    }
    return undefined;
  }

  dispose(): void {
    this.disarm();
    this.requestSignal.removeEventListener('abort', this.onAbort);
    this.controller.abort();
  }
}

/**
 * The events of an SDK stream, each read under the guard: the idle watchdog runs while waiting
 * for the next one, and a failure comes out as a ProviderError (the guard's own reason first:
 * an abort or a silent connection).
 */
export async function* guardedEvents<T>(
  events: AsyncIterator<T>,
  guard: TurnGuard,
  failure: (error: unknown) => ProviderError,
): AsyncGenerator<T> {
  for (;;) {
    guard.arm();
    let step: IteratorResult<T>;
    try {
      step = await events.next();
    } catch (error) {
      throw guard.stopError() ?? failure(error);
    }
    guard.disarm();
    if (step.done === true) return;
    yield step.value;
  }
}
