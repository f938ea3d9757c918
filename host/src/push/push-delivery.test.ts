import { ManualClock } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { PushCounters } from './push-counters.js';
import { MAX_CONCURRENT_PUSHES, MAX_PUSH_ATTEMPTS, MAX_QUEUED_PUSHES, PushDelivery } from './push-delivery.js';
import type { PushMessage, SendOutcome } from './push-sender.js';

/** A sender whose answers the test gives, one request at a time. */
function fakeSender() {
  const calls: { message: PushMessage; answer: (outcome: SendOutcome) => void }[] = [];
  return {
    calls,
    send: (message: PushMessage) => new Promise<SendOutcome>((answer) => calls.push({ message, answer })),
  };
}

const flush = () => new Promise((r) => setImmediate(r));

function message(endpoint = 'https://push.example/1', ttlSeconds = 120): PushMessage {
  return {
    subscription: { endpoint, p256dh: 'p', auth: 'a' },
    payload: new Uint8Array(1),
    ttlSeconds,
    urgency: 'high',
  };
}

function setUp() {
  const clock = new ManualClock();
  const counters = new PushCounters();
  const sender = fakeSender();
  const gone: string[] = [];
  const delivery = new PushDelivery({ sender, clock, counters, onGone: (e) => gone.push(e) });
  return { clock, counters, sender, gone, delivery };
}

describe('push delivery', () => {
  it('tries again after 1, 2 and 4 s, then gives up, counting each outcome', async () => {
    const { clock, counters, sender, delivery } = setUp();
    delivery.enqueue({ key: 'a1', deviceId: 'd', message: message() });
    for (let attempt = 1; attempt <= MAX_PUSH_ATTEMPTS; attempt++) {
      expect(sender.calls).toHaveLength(attempt);
      sender.calls[attempt - 1]!.answer({ kind: 'retry', reason: 'server-error', status: 503 });
      await flush();
      const wait = 1000 * 2 ** (attempt - 1);
      clock.advance(wait - 1);
      expect(sender.calls).toHaveLength(attempt); // not a moment early
      clock.advance(1);
    }
    expect(sender.calls).toHaveLength(MAX_PUSH_ATTEMPTS);
    expect(counters.get('push:retry:server-error')).toBe(MAX_PUSH_ATTEMPTS);
    expect(counters.get('push:failed:server-error')).toBe(1);
    expect(delivery.pending).toBe(0);
  });

  it('waits as long as Retry-After asks (up to 30 s), and never past the message TTL', async () => {
    const { clock, counters, sender, delivery } = setUp();
    delivery.enqueue({ key: 'a1', deviceId: 'd', message: message('https://push.example/1', 120) });
    sender.calls[0]!.answer({ kind: 'retry', reason: 'rate-limited', status: 429, retryAfterMs: 20_000 });
    await flush();
    clock.advance(19_999);
    expect(sender.calls).toHaveLength(1);
    clock.advance(1);
    expect(sender.calls).toHaveLength(2);

    delivery.enqueue({ key: 'a2', deviceId: 'd', message: message('https://push.example/2', 5) });
    sender.calls[2]!.answer({ kind: 'retry', reason: 'rate-limited', status: 429, retryAfterMs: 10_000 });
    await flush();
    expect(counters.get('push:expired')).toBe(1);
  });

  it('forgets a gone subscription and does not retry a refusal', async () => {
    const { counters, sender, gone, delivery } = setUp();
    delivery.enqueue({ key: 'a1', deviceId: 'd', message: message('https://push.example/gone') });
    delivery.enqueue({ key: 'a1', deviceId: 'd', message: message('https://push.example/bad') });
    sender.calls[0]!.answer({ kind: 'gone', status: 410 });
    sender.calls[1]!.answer({ kind: 'rejected', status: 403, reason: 'http-403' });
    await delivery.idle();
    expect(gone).toEqual(['https://push.example/gone']);
    expect(counters.snapshot()).toEqual({ 'push:gone': 1, 'push:rejected:http-403': 1 });
  });

  it('sends a few at a time, drops the oldest when full, and cancels what an answer made moot', async () => {
    const { counters, sender, delivery, clock } = setUp();
    for (let i = 0; i < MAX_CONCURRENT_PUSHES + MAX_QUEUED_PUSHES + 1; i++)
      delivery.enqueue({ key: `a${i}`, deviceId: 'd', message: message(`https://push.example/${i}`) });
    expect(sender.calls).toHaveLength(MAX_CONCURRENT_PUSHES);
    expect(counters.get('push:dropped:queue-full')).toBe(1);
    // The oldest waiting one (number 4) went; the newest is there.
    delivery.cancel(`a${MAX_CONCURRENT_PUSHES + MAX_QUEUED_PUSHES}`);
    delivery.cancel(`a${MAX_CONCURRENT_PUSHES}`);
    expect(counters.get('push:cancelled')).toBe(1);
    // A retry that waits is cancelled too.
    sender.calls[0]!.answer({ kind: 'retry', reason: 'timeout' });
    await flush();
    const before = sender.calls.length;
    delivery.cancel('a0');
    clock.advance(60_000);
    expect(sender.calls.slice(before).some((c) => c.message.subscription.endpoint.endsWith('/0'))).toBe(false);
    expect(counters.get('push:cancelled')).toBe(2);
  });
});
