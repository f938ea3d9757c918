import * as v from 'valibot';

/** `push.*`: Web Push subscriptions for lock-screen approvals. */

export const PushSubscribeParams = v.object({
  endpoint: v.pipe(v.string(), v.url(), v.startsWith('https://'), v.maxLength(2048)),
  keys: v.object({
    p256dh: v.pipe(v.string(), v.maxLength(256)),
    auth: v.pipe(v.string(), v.maxLength(256)),
  }),
});
export const PushUnsubscribeParams = v.object({
  endpoint: v.pipe(v.string(), v.maxLength(2048)),
});
