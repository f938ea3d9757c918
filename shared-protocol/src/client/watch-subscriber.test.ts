import { describe, expect, it } from 'vitest';
import type { Result } from '../errors.js';
import { fail, ok } from '../errors.js';
import { ManualClock } from '../testing/manual-clock.js';
import type { Watch } from './session-watches.js';
import { MAX_WATCH_CALLS, WATCH_BUSY_RETRY_MS, WatchSubscriber } from './watch-subscriber.js';

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function setup(answer: (id: string, attempt: number) => Result<unknown>) {
  const clock = new ManualClock();
  const watches = new Map<string, Watch>();
  const open: { id: string; resolve: () => void }[] = [];
  const attempts = new Map<string, number>();
  const refused: string[] = [];
  const subscriber = new WatchSubscriber({
    clock,
    watch: ({ id }) =>
      new Promise((resolve) => {
        const attempt = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, attempt);
        open.push({ id, resolve: () => resolve(answer(id, attempt)) });
      }),
    current: (id) => watches.get(id),
    refused: (id, error) => refused.push(`${id}: ${error.code}`),
  });
  const watch = (id: string) => {
    const w: Watch = { lastSeq: 0 };
    watches.set(id, w);
    subscriber.subscribe(id, w);
  };
  const answerAll = async () => {
    for (const call of open.splice(0)) call.resolve();
    await settle();
  };
  return { clock, watches, open, attempts, refused, subscriber, watch, answerAll };
}

describe('WatchSubscriber', () => {
  it('has at most MAX_WATCH_CALLS watch calls out, and asks for the rest as they are answered', async () => {
    const s = setup(() => ok({}));
    for (let i = 0; i < 40; i++) s.watch(`s${i}`);
    expect(s.open).toHaveLength(MAX_WATCH_CALLS);
    await s.answerAll();
    expect(s.open).toHaveLength(MAX_WATCH_CALLS);
    await s.answerAll();
    expect(s.open).toHaveLength(40 - 2 * MAX_WATCH_CALLS);
    await s.answerAll();
    expect(s.open).toHaveLength(0);
    expect([...s.attempts.values()].every((n) => n === 1)).toBe(true);
  });

  it('asks again after a pause for a watch the host was too busy for; tells of any other refusal', async () => {
    const s = setup((id, attempt) =>
      id === 'gone' ? fail('not-found', 'no such session') : attempt === 1 ? fail('busy', 'full') : ok({}),
    );
    s.watch('a');
    s.watch('gone');
    await s.answerAll();
    expect(s.refused).toEqual(['gone: not-found']);
    expect(s.open).toHaveLength(0);
    s.clock.advance(WATCH_BUSY_RETRY_MS);
    await settle();
    expect(s.open.map((c) => c.id)).toEqual(['a']);
    await s.answerAll();
    expect(s.attempts.get('a')).toBe(2);
  });

  it('makes no call for a watch dropped meanwhile, nor after a reset', async () => {
    const s = setup((_, attempt) => (attempt === 1 ? fail('busy', 'full') : ok({})));
    for (let i = 0; i < MAX_WATCH_CALLS + 2; i++) s.watch(`s${i}`);
    s.watches.delete(`s${MAX_WATCH_CALLS}`);
    await s.answerAll();
    // s{MAX} was dropped: only s{MAX+1} is asked for from the queue.
    expect(s.open.map((c) => c.id)).toEqual([`s${MAX_WATCH_CALLS + 1}`]);
    s.subscriber.reset();
    s.clock.advance(WATCH_BUSY_RETRY_MS);
    await s.answerAll();
    expect(s.open).toHaveLength(0);
  });
});
