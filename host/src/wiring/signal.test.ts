import { describe, expect, it } from 'vitest';
import { Signal } from './signal.js';

describe('Signal', () => {
  it('reaches every listener subscribed at the time, and none after it stops listening', () => {
    const signal = new Signal<number>();
    const heard: string[] = [];
    signal.emit(0);
    const stopA = signal.on((n) => heard.push(`a${n}`));
    signal.on((n) => heard.push(`b${n}`));
    signal.emit(1);
    stopA();
    signal.emit(2);
    expect(heard).toEqual(['a1', 'b1', 'b2']);
  });

  it('lets a listener stop listening while it is called', () => {
    const signal = new Signal<number>();
    const heard: number[] = [];
    const stop = signal.on((n) => {
      heard.push(n);
      stop();
    });
    signal.on((n) => heard.push(n * 10));
    signal.emit(1);
    signal.emit(2);
    expect(heard).toEqual([1, 10, 20]);
  });
});
