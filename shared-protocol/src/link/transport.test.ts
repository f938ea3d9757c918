import { describe, expect, it } from 'vitest';
import { ManualClock } from '../testing/manual-clock.js';
import type { WebSocketLike } from './transport.js';
import { OPEN_TIMEOUT_MS, webSocketConnect } from './transport.js';

/** A WebSocket that does nothing until the test says: a dial that neither opens nor fails. */
class SilentSocket implements WebSocketLike {
  static made: SilentSocket[] = [];
  binaryType = 'blob';
  readyState = 0;
  closed: { code?: number; reason?: string } | undefined;
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor(readonly url: string) {
    SilentSocket.made.push(this);
  }
  send(): void {}
  close(code?: number, reason?: string): void {
    this.closed = { ...(code !== undefined ? { code } : {}), ...(reason !== undefined ? { reason } : {}) };
  }
}

describe('webSocketConnect', () => {
  it('gives up on a dial that neither opens nor fails, and closes that socket', async () => {
    SilentSocket.made = [];
    const clock = new ManualClock();
    const dial = webSocketConnect('ws://127.0.0.1:9/rc/ws', SilentSocket, { clock })();
    clock.advance(OPEN_TIMEOUT_MS - 1);
    let settled = false;
    void dial.catch(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    clock.advance(1);
    await expect(dial).rejects.toThrow(/did not open/);
    expect(SilentSocket.made[0]?.closed).toBeDefined();
  });

  it('opens as before when the socket opens in time, and a late timer changes nothing', async () => {
    SilentSocket.made = [];
    const clock = new ManualClock();
    const dial = webSocketConnect('ws://127.0.0.1:9/rc/ws', SilentSocket, { clock })();
    const socket = SilentSocket.made[0]!;
    socket.readyState = 1;
    socket.onopen?.({});
    const transport = await dial;
    clock.advance(OPEN_TIMEOUT_MS * 2);
    expect(socket.closed).toBeUndefined();
    let closedWith: number | undefined;
    transport.onClose = (info) => (closedWith = info.code);
    socket.onclose?.({ code: 1000, reason: '' });
    expect(closedWith).toBe(1000);
  });
});
