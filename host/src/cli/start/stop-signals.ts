/** Where the signals come from and how a second one leaves at once: the process, or a test's fake. */
export interface SignalSource {
  on(signal: NodeJS.Signals, handler: (signal: NodeJS.Signals) => void): void;
  /** Leaves without waiting for anything; only for a second signal while stopping. */
  exitNow(code: number): never;
}

export const PROCESS_SIGNALS: SignalSource = {
  on: (signal, handler) => process.on(signal, handler),
  exitNow: (code) => process.exit(code),
};

export interface StopSteps {
  /** The first SIGINT/SIGTERM arrived. */
  stopping(signal: NodeJS.Signals): void;
  /** Closes the host; resolves when runs are interrupted and the store is closed. */
  close(): Promise<void>;
  /** A second signal arrived while closing: say so before leaving at once. */
  again(signal: NodeJS.Signals): void;
}

/**
 * Waits for SIGINT or SIGTERM, then closes. A second signal while closing leaves at once with
 * `againCode` (the person asked twice; a stuck close must not hold the terminal).
 */
export function waitForStop(signals: SignalSource, steps: StopSteps, againCode: number): Promise<void> {
  return new Promise<void>((done, failed) => {
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) {
        steps.again(signal);
        signals.exitNow(againCode);
      }
      stopping = true;
      steps.stopping(signal);
      steps.close().then(done, failed);
    };
    signals.on('SIGINT', stop);
    signals.on('SIGTERM', stop);
  });
}
