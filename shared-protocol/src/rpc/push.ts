import * as v from 'valibot';
import { Id, Timestamp } from './common.js';

/** `push.*`: Web Push subscriptions for lock-screen approvals; `app.visibility`: what is on screen. */

/** What a device wants to be told about when the app is not in front. */
export const PushPreferencesSchema = v.object({
  /** An approval waits for an answer (on unless switched off). */
  approvals: v.boolean(),
  /** A run ended well. */
  runFinished: v.boolean(),
  /** A run ended with an error. */
  runFailed: v.boolean(),
});
export type PushPreferences = v.InferOutput<typeof PushPreferencesSchema>;

export const DEFAULT_PUSH_PREFERENCES: PushPreferences = { approvals: true, runFinished: false, runFailed: false };

/** An endpoint as a push service hands it out: https only, and short enough to store. */
const Endpoint = v.pipe(v.string(), v.url(), v.startsWith('https://'), v.maxLength(2048));
/** base64url without padding: the P-256 public key is 65 bytes (87 characters), the auth secret 16 (22). */
const KeyText = (min: number, max: number) =>
  v.pipe(v.string(), v.minLength(min), v.maxLength(max), v.regex(/^[A-Za-z0-9_-]+=*$/));

/**
 * The app's own address (no fragment, no user or password in it): where a tap on a declarative
 * notification goes, with the screen's fragment added.
 */
export const AppUrl = v.pipe(v.string(), v.maxLength(1024), v.url(), v.regex(/^https?:\/\/[^/?#@]+(?:\/[^#]*)?$/));

export const PushSubscribeParams = v.object({
  endpoint: Endpoint,
  keys: v.object({
    p256dh: KeyText(80, 128),
    auth: KeyText(16, 64),
  }),
  /** Absent: the defaults (approvals only), or what this endpoint had before. */
  preferences: v.optional(PushPreferencesSchema),
  /**
   * The browser shows Declarative Web Push messages itself (Safari 18.4+: `window.pushManager`
   * exists), so the host sends this subscription that form, whose taps open `appUrl`. Absent:
   * the service worker shows every message. Added without a version change: an older host
   * ignores it and sends the service-worker form.
   */
  declarative: v.optional(v.object({ appUrl: AppUrl })),
});
export const PushUnsubscribeParams = v.object({
  endpoint: v.pipe(v.string(), v.maxLength(2048)),
});

export const PushSubscriptionInfoSchema = v.object({
  endpoint: Endpoint,
  preferences: PushPreferencesSchema,
  createdAt: Timestamp,
});

/** `push.status`: the host's VAPID public key (the app's `applicationServerKey`) and this device's subscriptions. */
export const PushStatusResult = v.object({
  /** base64url of the uncompressed P-256 point (65 bytes). */
  publicKey: KeyText(87, 87),
  subscriptions: v.array(PushSubscriptionInfoSchema),
});
export type PushStatus = v.InferOutput<typeof PushStatusResult>;

/**
 * `app.visibility`: the app says whether it is in front, and which session it shows. The host sends
 * no notification for a session some device has open in front; the app repeats this while visible
 * (APP_VISIBILITY_REFRESH_MS) so a claim from a phone that locked without saying so runs out.
 */
export const AppVisibilityParams = v.object({
  visible: v.boolean(),
  sessionId: v.optional(Id),
});

/** Milliseconds between the app's visibility reports while it stays in front. */
export const APP_VISIBILITY_REFRESH_MS = 20_000;
/** Milliseconds a "visible" report holds without being repeated: two refreshes and some slack. */
export const APP_VISIBILITY_TTL_MS = 2 * APP_VISIBILITY_REFRESH_MS + 5_000;
