import type { TetherEvent } from '@tether/shared-protocol';

/**
 * A connection's subscriptions: each is one stream the device asked for (a session's events, the
 * session list, host events, a terminal), with its own flow-control policy. The connection routes
 * every published event to the subscription under the event's route key; one subscription falling
 * behind is handled by its own policy and does not, by itself, cut the others.
 */
export interface Subscription {
  readonly key: string;
  /** An event published on this subscription's route. */
  deliver(event: TetherEvent): void;
  /** The device unsubscribed, or the connection closed. */
  end(): void;
}
