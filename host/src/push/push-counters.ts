import { Counters, prefixed } from '../stats/counters.js';
import type { RetryReason } from './push-sender.js';

/**
 * What became of each push: delivered, gone, refused for good (by HTTP status where the push
 * service gave one), tried again or given up (by reason), dropped, or not sent at all.
 */

const RETRY_REASONS = ['rate-limited', 'server-error', 'timeout', 'network'] as const satisfies readonly RetryReason[];

/** The statuses a push service may refuse a push with for good: 4xx but gone (404, 410) and 429. */
const REJECTED_STATUSES = Array.from({ length: 100 }, (_, i) => 400 + i).filter(
  (s) => s !== 404 && s !== 410 && s !== 429,
);
/** Anything else the push service says that is neither success nor worth a retry (1xx, 3xx). */
const OTHER_STATUS = 'http-other';

export const PUSH_COUNTER_NAMES = [
  'push:delivered',
  'push:gone',
  'push:expired',
  'push:cancelled',
  'push:dropped:queue-full',
  'push:skipped:in-front',
  'push:skipped:session-off',
  'push:rejected:payload-too-large',
  'push:rejected:bad-subscription',
  'push:rejected:too-large',
  `push:rejected:${OTHER_STATUS}`,
  ...prefixed(
    'push:rejected:',
    REJECTED_STATUSES.map((s) => `http-${s}` as const),
  ),
  ...prefixed('push:retry:', RETRY_REASONS),
  ...prefixed('push:failed:', RETRY_REASONS),
] as const;
export type PushCounterName = (typeof PUSH_COUNTER_NAMES)[number];
/** A counter's name without its `push:` prefix. */
export type PushReason = WithoutPrefix<PushCounterName>;
type WithoutPrefix<N> = N extends `push:${infer R}` ? R : never;

export class PushCounters extends Counters<PushCounterName> {
  constructor() {
    super(PUSH_COUNTER_NAMES);
  }

  /** A refusal for good, under its reason's first word (`bad-subscription: …` → `bad-subscription`). */
  addRejected(reason: string): void {
    const name = `push:rejected:${reason.split(':')[0]!}`;
    this.add(this.has(name) ? name : `push:rejected:${OTHER_STATUS}`);
  }
}
