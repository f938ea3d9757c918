import { describe, expect, it } from 'vitest';
import type { SignalSource } from './stop-signals.js';
import { waitForStop } from './stop-signals.js';

class FakeSignals implements SignalSource {
  readonly handlers = new Map<NodeJS.Signals, (signal: NodeJS.Signals) => void>();
  exited: number | undefined;
  on(signal: NodeJS.Signals, handler: (signal: NodeJS.Signals) => void): void {
    this.handlers.set(signal, handler);
  }
  exitNow(code: number): never {
    this.exited = code;
    throw new Error('exited');
  }
  send(signal: NodeJS.Signals): void {
    this.handlers.get(signal)!(signal);
  }
}

describe('waitForStop', () => {
  it('closes on the first signal and resolves once closed', async () => {
    const signals = new FakeSignals();
    const seen: string[] = [];
    let finish!: () => void;
    const stopped = waitForStop(
      signals,
      {
        stopping: (s) => seen.push(`stopping ${s}`),
        close: () => new Promise<void>((r) => (finish = r)),
        again: (s) => seen.push(`again ${s}`),
      },
      1,
    );
    let resolved = false;
    void stopped.then(() => (resolved = true));
    signals.send('SIGTERM');
    await Promise.resolve();
    expect(seen).toEqual(['stopping SIGTERM']);
    expect(resolved).toBe(false);
    finish();
    await stopped;
    expect(signals.exited).toBeUndefined();
  });

  it('leaves at once on a second signal while closing', () => {
    const signals = new FakeSignals();
    const seen: string[] = [];
    void waitForStop(
      signals,
      {
        stopping: () => seen.push('stopping'),
        close: () => new Promise<void>(() => {}),
        again: (s) => seen.push(`again ${s}`),
      },
      1,
    );
    signals.send('SIGINT');
    expect(() => signals.send('SIGINT')).toThrow('exited');
    expect(seen).toEqual(['stopping', 'again SIGINT']);
    expect(signals.exited).toBe(1);
  });

  it('passes on a failed close', async () => {
    const signals = new FakeSignals();
    const stopped = waitForStop(
      signals,
      { stopping: () => {}, close: () => Promise.reject(new Error('store stuck')), again: () => {} },
      1,
    );
    signals.send('SIGINT');
    await expect(stopped).rejects.toThrow('store stuck');
  });
});
