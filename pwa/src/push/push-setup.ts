import type { PushPreferences, Result } from '@tether/shared-protocol';
import { fail, fromBase64UrlExact, ok, toBase64Url } from '@tether/shared-protocol';
import type { HostConnection } from '../net/host-connection.js';

/** Milliseconds a push.* call may take before the Settings panel says so. */
const PUSH_CALL_TIMEOUT_MS = 10_000;

/**
 * Whether notifications can be switched on here, and if not, why (what the Settings panel says).
 * - `insecure`: plain HTTP; no service worker, so no push.
 * - `ios-browser`: iOS/iPadOS give push only to the app added to the Home Screen.
 * - `unsupported`: this browser has no Push API.
 * - `denied`: the person blocked notifications for this site (only the browser's settings undo it).
 */
export type PushAvailability = 'ready' | 'insecure' | 'ios-browser' | 'unsupported' | 'denied';

export interface PushEnvironment {
  secure: boolean;
  hasPush: boolean;
  /** iOS or iPadOS (Safari and every other browser there). */
  ios: boolean;
  /** Opened from the Home Screen (display-mode standalone). */
  standalone: boolean;
  permission: NotificationPermission | undefined;
}

export function pushAvailability(env: PushEnvironment): PushAvailability {
  if (!env.secure) return 'insecure';
  if (env.ios && !env.standalone) return 'ios-browser';
  if (!env.hasPush || env.permission === undefined) return 'unsupported';
  if (env.permission === 'denied') return 'denied';
  return 'ready';
}

/** What this page's browser says, read once per render of the panel. */
export function browserPushEnvironment(): PushEnvironment {
  const ua = navigator.userAgent;
  // iPadOS reports a Mac; a Mac with a touch screen is an iPad.
  const ios = /iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1);
  return {
    secure: window.isSecureContext,
    hasPush: 'serviceWorker' in navigator && 'PushManager' in window,
    ios,
    standalone:
      window.matchMedia('(display-mode: standalone)').matches ||
      (navigator as { standalone?: boolean }).standalone === true,
    permission: 'Notification' in window ? Notification.permission : undefined,
  };
}

/** The browser's side: permission and the push subscription of the app's service worker. */
export interface BrowserPush {
  requestPermission(): Promise<NotificationPermission>;
  current(): Promise<PushSubscription | null>;
  subscribe(applicationServerKey: Uint8Array): Promise<PushSubscription>;
  /**
   * The app's address when this browser shows Declarative Web Push messages itself, so a tap
   * opens it even with no service worker running; undefined where it does not.
   */
  declarativeAppUrl(): string | undefined;
}

/**
 * Whether a browser shows declarative messages itself: WebKit's form puts a PushManager on the
 * window (`window.pushManager`, Safari 18.4+), where others keep it on a service worker's
 * registration only. The subscription is the same one either way.
 */
export function takesDeclarativePush(global: object): boolean {
  return 'pushManager' in global;
}

export function browserPush(): BrowserPush {
  const registration = () => navigator.serviceWorker.ready;
  return {
    requestPermission: () => Notification.requestPermission(),
    current: async () => (await registration()).pushManager.getSubscription(),
    subscribe: async (key) =>
      (await registration()).pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: new Uint8Array(key),
      }),
    // The service worker's scope ('./'): what a tap opens, with the screen's fragment added.
    declarativeAppUrl: () => (takesDeclarativePush(window) ? new URL('./', location.href).href : undefined),
  };
}

type PushClient = Pick<HostConnection['client'], 'call'>;

/**
 * Switches notifications on for one host: asks permission (call this from a click: iOS requires a
 * user gesture), subscribes with the host's VAPID key (push.status) and hands the subscription to
 * the host with the chosen preferences (push.subscribe), saying whether the browser shows
 * declarative messages itself. Enabling again only updates preferences.
 */
export async function enableNotifications(
  client: PushClient,
  browser: BrowserPush,
  preferences: PushPreferences,
): Promise<Result<{ endpoint: string }>> {
  const permission = await browser.requestPermission();
  if (permission !== 'granted') return fail('unsupported', 'Notifications were not allowed for this app.');
  const status = await client.call('push.status', {}, { timeoutMs: PUSH_CALL_TIMEOUT_MS });
  if (!status.ok) return status;
  const key = fromBase64UrlExact(status.value.publicKey, 65);
  if (!key) return fail('invalid-params', 'The computer sent a push key this app cannot use.');
  let subscription = await browser.current();
  if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
    // One subscription per app install, tied to one sender's key: another computer holds it.
    return fail(
      'unsupported',
      'Notifications here are already set up for another computer served from this address. Turn them off there first.',
    );
  }
  try {
    subscription ??= await browser.subscribe(key);
  } catch (error) {
    return fail(
      'unavailable',
      `The browser could not subscribe: ${error instanceof Error ? error.message : 'unknown'}.`,
    );
  }
  const json = subscription.toJSON();
  const p256dh = json.keys?.p256dh;
  const auth = json.keys?.auth;
  if (!json.endpoint || !p256dh || !auth) return fail('unavailable', 'The browser gave an incomplete subscription.');
  const appUrl = browser.declarativeAppUrl();
  const sent = await client.call(
    'push.subscribe',
    { endpoint: json.endpoint, keys: { p256dh, auth }, preferences, ...(appUrl ? { declarative: { appUrl } } : {}) },
    { timeoutMs: PUSH_CALL_TIMEOUT_MS },
  );
  return sent.ok ? ok({ endpoint: json.endpoint }) : sent;
}

/** Stops this host's notifications to this device; the browser's subscription stays for others. */
export async function disableNotifications(client: PushClient, endpoint: string): Promise<Result<void>> {
  const result = await client.call('push.unsubscribe', { endpoint }, { timeoutMs: PUSH_CALL_TIMEOUT_MS });
  return result.ok ? ok(undefined) : result;
}

function sameKey(a: ArrayBuffer | null, b: Uint8Array): boolean {
  if (!a) return true; // not reported by this browser: assume it is ours
  return toBase64Url(new Uint8Array(a)) === toBase64Url(b);
}
