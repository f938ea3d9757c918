import { describe, expect, it } from 'vitest';
import { CreditInbox } from './credit-inbox.js';

const bytes = (n: number) => new Uint8Array(n);

describe('CreditInbox', () => {
  it('hands items on in order while the reader is ready, counting what it acknowledges', () => {
    const inbox = new CreditInbox<Uint8Array>(100, (chunk) => chunk.length);
    inbox.hold(bytes(10));
    inbox.hold(bytes(20));
    inbox.hold(bytes(30));
    const taken: number[] = [];
    let room = 2;
    const units = inbox.drain(
      () => room > 0,
      (chunk) => {
        room--;
        taken.push(chunk.length);
      },
    );
    expect(taken).toEqual([10, 20]);
    expect(units).toBe(30);
    expect(inbox.held).toBe(30);
    expect(inbox.isEmpty).toBe(false);
  });

  it('acknowledges nothing while the reader is paused', () => {
    const inbox = new CreditInbox<Uint8Array>(100, (chunk) => chunk.length);
    inbox.hold(bytes(10));
    expect(
      inbox.drain(
        () => false,
        () => undefined,
      ),
    ).toBe(0);
    expect(inbox.held).toBe(10);
  });

  it('says when the sender passes the bound: it ignores its credit', () => {
    const inbox = new CreditInbox<Uint8Array>(100, (chunk) => chunk.length);
    expect(inbox.hold(bytes(100))).toBe(true);
    expect(inbox.hold(bytes(1))).toBe(false);
    inbox.clear();
    expect(inbox.held).toBe(0);
    expect(inbox.isEmpty).toBe(true);
  });
});
