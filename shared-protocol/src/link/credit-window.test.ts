import { describe, expect, it } from 'vitest';
import { CreditWindow } from './credit-window.js';

describe('CreditWindow', () => {
  it('fills at the limit and says so once', () => {
    const credit = new CreditWindow(100);
    expect(credit.send(60)).toBe(false);
    expect(credit.room).toBe(40);
    expect(credit.send(40)).toBe(true);
    expect(credit.isPaused).toBe(true);
    expect(credit.room).toBe(0);
    // Already full: sending more (the tail of a chunk) does not report filling again.
    expect(credit.send(10)).toBe(false);
    expect(credit.inFlight).toBe(110);
  });

  it('reopens only once in flight is down to half the credit, by default', () => {
    const credit = new CreditWindow(100);
    credit.send(100);
    expect(credit.ack(49)).toBe(false);
    expect(credit.isPaused).toBe(true);
    expect(credit.ack(1)).toBe(true);
    expect(credit.isPaused).toBe(false);
    expect(credit.ack(10)).toBe(false);
  });

  it('reopens at the point it was given', () => {
    const credit = new CreditWindow(100, 100);
    credit.send(100);
    expect(credit.ack(1)).toBe(true);
  });

  it('never counts more acknowledged than was sent, nor a negative acknowledgement', () => {
    const credit = new CreditWindow(100);
    credit.send(30);
    credit.ack(500);
    expect(credit.inFlight).toBe(0);
    credit.send(20);
    credit.ack(-50);
    expect(credit.inFlight).toBe(20);
  });

  it('takes offsets: stale ones are ignored, ones past what was sent are capped', () => {
    const credit = new CreditWindow(100, 100, 1000);
    expect(credit.sent).toBe(1000);
    credit.send(100);
    expect(credit.ackTo(900)).toBe(false);
    expect(credit.inFlight).toBe(100);
    expect(credit.ackTo(1040)).toBe(true);
    expect(credit.acked).toBe(1040);
    credit.ackTo(5000);
    expect(credit.acked).toBe(1100);
  });

  it('counts skipped units as acknowledged', () => {
    const credit = new CreditWindow(100, 100, 0);
    credit.send(10);
    credit.skip(500);
    expect(credit.sent).toBe(510);
    expect(credit.inFlight).toBe(10);
  });
});
