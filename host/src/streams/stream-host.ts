import type { Result } from '@tether/shared-protocol';
import type { Outbox } from './outbox.js';
import type { Subscription } from './subscription.js';

/** What a flow-controlled stream (a terminal's output) needs of the connection it is read on. */
export interface StreamHost {
  readonly outbox: Outbox;
  /** Adds a subscription, replacing (and ending) one under the same key; `busy` past the bound. */
  subscribe(subscription: Subscription): Result<void>;
  subscription(key: string): Subscription | undefined;
  unsubscribe(key: string): void;
}
