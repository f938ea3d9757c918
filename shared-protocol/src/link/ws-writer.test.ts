import { describe, expect, it } from 'vitest';
import type { WsLike } from './ws-writer.js';
import { closeOnce, wsWriter } from './ws-writer.js';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;

/** The shape of a `ws` socket, recording what was asked of it. */
class FakeWs implements WsLike {
  readonly OPEN = OPEN;
  readonly CONNECTING = CONNECTING;
  readyState = OPEN;
  readonly written: Uint8Array[] = [];
  readonly callbacks: ((error?: Error) => void)[] = [];
  readonly closes: [number, string][] = [];
  terminated = 0;

  send(data: Uint8Array, options: { binary: boolean }, callback: (error?: Error) => void): void {
    expect(options.binary).toBe(true);
    this.written.push(data);
    this.callbacks.push(callback);
  }

  close(code: number, reason: string): void {
    this.closes.push([code, reason]);
  }

  terminate(): void {
    this.terminated++;
  }
}

describe('wsWriter', () => {
  it('writes binary messages and says done when the socket has written each', () => {
    const ws = new FakeWs();
    const writer = wsWriter(ws);
    let done = 0;
    writer.send(new Uint8Array([1, 2]), () => done++);
    expect(ws.written).toEqual([new Uint8Array([1, 2])]);
    expect(done).toBe(0);
    ws.callbacks[0]!(new Error('write failed'));
    expect(done).toBe(1);
  });

  it('does not write to a socket that is not open, and still says done, on the next microtask', async () => {
    const ws = new FakeWs();
    ws.readyState = CLOSING;
    let done = 0;
    wsWriter(ws).send(new Uint8Array([1]), () => done++);
    expect(ws.written).toEqual([]);
    expect(done).toBe(0);
    await Promise.resolve();
    expect(done).toBe(1);
  });

  it('closes an open or opening socket, and leaves one already closing alone', () => {
    const ws = new FakeWs();
    const writer = wsWriter(ws);
    writer.close(1000, 'bye');
    ws.readyState = CONNECTING;
    writer.close(1001, 'going');
    ws.readyState = CLOSING;
    writer.close(1002, 'again');
    expect(ws.closes).toEqual([
      [1000, 'bye'],
      [1001, 'going'],
    ]);
    writer.terminate();
    expect(ws.terminated).toBe(1);
  });
});

describe('closeOnce', () => {
  it('reports the first end only', () => {
    const seen: [number, string][] = [];
    const finish = closeOnce((code, reason) => seen.push([code, reason]));
    finish(1006, 'error');
    finish(1000, 'closed');
    expect(seen).toEqual([[1006, 'error']]);
  });
});
