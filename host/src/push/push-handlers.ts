import type { Clock, Methods } from '@tether/shared-protocol';
import { fail, fromBase64UrlExact, ok } from '@tether/shared-protocol';
import type { Caller } from '../rpc/caller.js';
import type { Handlers } from '../rpc/dispatch.js';
import { allowedEndpoint } from './push-config.js';
import type { ForegroundTracker } from './foreground.js';
import type { PushStore } from './push-store.js';

export interface PushHandlerDeps {
  store: PushStore;
  foreground: ForegroundTracker;
  vapidPublicKey: string;
  /** Push service origins allowed besides the well-known ones (push-config.ts). */
  extraPushOrigins: readonly string[];
  clock: Pick<Clock, 'now'>;
}

type PushMethods = Pick<Methods, 'push.subscribe' | 'push.unsubscribe' | 'push.status' | 'app.visibility'>;

/** The device methods of push notifications, behind the dispatch's scope and params checks. */
export function pushHandlers(deps: PushHandlerDeps): Handlers<PushMethods, Caller> {
  return {
    'push.subscribe': ({ endpoint, keys, preferences, declarative }, caller) => {
      if (!allowedEndpoint(endpoint, deps.extraPushOrigins)) {
        return fail('invalid-params', 'the endpoint is not on a push service this host sends to');
      }
      // The subscription's P-256 key (an uncompressed point) and its 16-byte auth secret (RFC 8291).
      if (fromBase64UrlExact(keys.p256dh.replace(/=+$/, ''), 65)?.[0] !== 0x04) {
        return fail('invalid-params', 'keys.p256dh is not an uncompressed P-256 public key');
      }
      if (!fromBase64UrlExact(keys.auth.replace(/=+$/, ''), 16)) {
        return fail('invalid-params', 'keys.auth is not a 16-byte secret');
      }
      deps.store.put({
        endpoint,
        deviceId: caller.device.id,
        p256dh: keys.p256dh.replace(/=+$/, ''),
        auth: keys.auth.replace(/=+$/, ''),
        createdAt: deps.clock.now(),
        ...(preferences ? { preferences } : {}),
        // The device says at each subscribe which form its browser takes.
        ...(declarative ? { declarativeUrl: declarative.appUrl } : {}),
      });
      return ok({});
    },
    'push.unsubscribe': ({ endpoint }, caller) => {
      deps.store.remove(endpoint, caller.device.id);
      return ok({});
    },
    'push.status': (_params, caller) =>
      ok({
        publicKey: deps.vapidPublicKey,
        subscriptions: deps.store
          .forDevice(caller.device.id)
          .map(({ endpoint, preferences, createdAt }) => ({ endpoint, preferences, createdAt })),
      }),
    'app.visibility': ({ visible, sessionId }, caller) => {
      if (!caller.connection) return fail('unsupported', 'visibility is reported over a connection');
      deps.foreground.report(caller.connection, caller.device.id, visible, sessionId, deps.clock.now());
      return ok({});
    },
  };
}
