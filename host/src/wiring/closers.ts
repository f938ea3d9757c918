import type { Result } from '@tether/shared-protocol';

/** What undoes one part: stops it, ends what it holds, lets go of what it opened. */
export type Closer = () => void | Promise<void>;

/**
 * The one list of what a host has opened, in the order it opened it. A builder hands each part's
 * closer to `defer` the moment the part exists, so closing is in reverse order by construction: a
 * part is closed before the parts it was built from. Where a part must close earlier than that, it
 * is registered later on purpose, and says why where it is registered.
 *
 * `close` runs every closer, newest first, awaiting each; one that throws does not stop the rest,
 * and the errors are thrown once, together, at the end. Closing twice closes once.
 */
export class Teardown {
  private readonly closers: { name: string; close: Closer }[] = [];
  private closing: Promise<void> | undefined;

  /** `onClosed` hears each part's name as it is closed (tests check the order with it). */
  constructor(private readonly onClosed?: (name: string) => void) {}

  /** Names of what is registered, oldest first. */
  get names(): string[] {
    return this.closers.map((entry) => entry.name);
  }

  /** Registers what undoes the part just opened. Refused once closing has begun: it would stay open. */
  defer(name: string, close: Closer): void {
    if (this.closing) throw new Error(`"${name}" was opened after its host began to close`);
    this.closers.push({ name, close });
  }

  /**
   * A place in this list for parts opened later (a host's transports, opened when it starts), to
   * be closed where the place stands rather than first. Their names are reported as `name/part`.
   */
  nest(name: string): Teardown {
    const inner = new Teardown(this.onClosed && ((part) => this.onClosed?.(`${name}/${part}`)));
    this.defer(name, () => inner.close());
    return inner;
  }

  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    const errors: unknown[] = [];
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
      } catch (error) {
        errors.push(error);
      }
      this.onClosed?.(name);
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} parts failed to close`);
  }
}

/**
 * Runs a build whose parts register with `scope`: if it fails (a failed result, or a throw), what
 * was opened so far is closed, newest first, and the failure is handed on.
 */
export async function building<T>(scope: Teardown, build: () => Promise<Result<T>>): Promise<Result<T>> {
  let built: Result<T>;
  try {
    built = await build();
  } catch (error) {
    try {
      await scope.close();
    } catch (closing) {
      throw new AggregateError([error, closing], 'a build failed, and closing what it had opened failed too', {
        cause: closing,
      });
    }
    throw error;
  }
  if (!built.ok) await scope.close();
  return built;
}
