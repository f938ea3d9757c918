import { describe, expect, it } from 'vitest';
import { CreditWindow } from './credit-window.js';

describe('CreditWindow', () => {
  it('fills at the limit and says so once', () => {
    const window = new CreditWindow(100);
    expect(window.send(60)).toBe(false);
    expect(window.room).toBe(40);
    expect(window.send(40)).toBe(true);
    expect(window.isPaused).toBe(true);
    expect(window.room).toBe(0);
    // Already full: sending more (the tail of a chunk) does not report filling again.
    expect(window.send(10)).toBe(false);
    expect(window.inFlight).toBe(110);
  });

  it('reopens only once in flight is down to half the window, by default', () => {
    const window = new CreditWindow(100);
    window.send(100);
    expect(window.ack(49)).toBe(false);
    expect(window.isPaused).toBe(true);
    expect(window.ack(1)).toBe(true);
    expect(window.isPaused).toBe(false);
    expect(window.ack(10)).toBe(false);
  });

  it('reopens at the point it was given', () => {
    const window = new CreditWindow(100, 100);
    window.send(100);
    expect(window.ack(1)).toBe(true);
  });

  it('never counts more acknowledged than was sent, nor a negative acknowledgement', () => {
    const window = new CreditWindow(100);
    window.send(30);
    window.ack(500);
    expect(window.inFlight).toBe(0);
    window.send(20);
    window.ack(-50);
    expect(window.inFlight).toBe(20);
  });

  it('takes offsets: stale ones are ignored, ones past what was sent are capped', () => {
    const window = new CreditWindow(100, 100, 1000);
    expect(window.sent).toBe(1000);
    window.send(100);
    expect(window.ackTo(900)).toBe(false);
    expect(window.inFlight).toBe(100);
    expect(window.ackTo(1040)).toBe(true);
    expect(window.acked).toBe(1040);
    window.ackTo(5000);
    expect(window.acked).toBe(1100);
  });

  it('counts skipped units as acknowledged', () => {
    const window = new CreditWindow(100, 100, 0);
    window.send(10);
    window.skip(500);
    expect(window.sent).toBe(510);
    expect(window.inFlight).toBe(10);
  });
});
