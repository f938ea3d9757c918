import type { PushPayload } from '@tether/shared-protocol';
import { declarativePush, encodeDeclarativePush, encodePushPayload } from '@tether/shared-protocol';
import type { PushSubscriptionRecord } from './push-store.js';

/**
 * The bodies of one push in the form each subscription takes: the payload's JSON for a service
 * worker, or a declarative message (Safari 18.4+) opening the app at `declarativeUrl`. Both are
 * made from the same masked payload; each distinct body is encoded once.
 */
export class PushBodies {
  private readonly declarative = new Map<string, Uint8Array>();

  private constructor(
    private readonly payload: PushPayload,
    private readonly worker: Uint8Array,
    private readonly hostName: string,
  ) {}

  /** Undefined when the payload is over its bound (its fields are bounded: a bug). */
  static of(payload: PushPayload, hostName: string): PushBodies | undefined {
    const worker = encodePushPayload(payload);
    return worker && new PushBodies(payload, worker, hostName);
  }

  /**
   * The body for `subscription`. A declarative message too large even without its `data` (a very
   * long app address) goes in the worker form, which a service worker still alive shows.
   */
  for(subscription: Pick<PushSubscriptionRecord, 'declarativeUrl'>): Uint8Array {
    const url = subscription.declarativeUrl;
    if (url === undefined) return this.worker;
    let body = this.declarative.get(url);
    if (!body) {
      body = encodeDeclarativePush(declarativePush(this.payload, url, this.hostName)) ?? this.worker;
      this.declarative.set(url, body);
    }
    return body;
  }
}
