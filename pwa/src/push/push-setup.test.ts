import type { Result } from '@tether/shared-protocol';
import { ok, toBase64Url } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import type { BrowserPush, PushEnvironment } from './push-setup.js';
import { enableNotifications, pushAvailability, takesDeclarativePush } from './push-setup.js';

const env = (change: Partial<PushEnvironment>): PushEnvironment => ({
  secure: true,
  hasPush: true,
  ios: false,
  standalone: false,
  permission: 'default',
  ...change,
});

describe('whether notifications can be switched on', () => {
  it('says why not: plain HTTP, an iPhone outside the Home Screen, no Push API, blocked', () => {
    expect(pushAvailability(env({}))).toBe('ready');
    expect(pushAvailability(env({ secure: false }))).toBe('insecure');
    expect(pushAvailability(env({ ios: true }))).toBe('ios-browser');
    expect(pushAvailability(env({ ios: true, standalone: true }))).toBe('ready');
    expect(pushAvailability(env({ hasPush: false }))).toBe('unsupported');
    expect(pushAvailability(env({ permission: 'denied' }))).toBe('denied');
  });
});

const KEY = new Uint8Array(65).fill(4);
const P256 = toBase64Url(new Uint8Array(65).fill(4));
const AUTH = toBase64Url(new Uint8Array(16).fill(1));

function subscription(key: Uint8Array): PushSubscription {
  return {
    endpoint: 'https://fcm.googleapis.com/fcm/send/x',
    options: { applicationServerKey: new Uint8Array(key).buffer, userVisibleOnly: true },
    toJSON: () => ({ endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: P256, auth: AUTH } }),
  } as unknown as PushSubscription;
}

function fakes(
  options: { permission?: NotificationPermission; existing?: PushSubscription | null; appUrl?: string } = {},
) {
  const calls: [string, unknown][] = [];
  const subscribed: Uint8Array[] = [];
  const client = {
    call: (method: string, params: unknown): Promise<Result<unknown>> => {
      calls.push([method, params]);
      if (method === 'push.status') return Promise.resolve(ok({ publicKey: toBase64Url(KEY), subscriptions: [] }));
      return Promise.resolve(ok({}));
    },
  };
  const browser: BrowserPush = {
    requestPermission: () => Promise.resolve(options.permission ?? 'granted'),
    current: () => Promise.resolve(options.existing ?? null),
    subscribe: (key) => (subscribed.push(key), Promise.resolve(subscription(key))),
    declarativeAppUrl: () => options.appUrl,
  };
  return { client: client as Parameters<typeof enableNotifications>[0], browser, calls, subscribed };
}

describe('switching notifications on', () => {
  const prefs = { approvals: true, runFinished: false, runFailed: true };

  it("subscribes with the host's VAPID key and hands the subscription to the host", async () => {
    const f = fakes();
    const result = await enableNotifications(f.client, f.browser, prefs);
    expect(result.ok).toBe(true);
    expect(f.subscribed).toEqual([KEY]);
    expect(f.calls[1]).toEqual([
      'push.subscribe',
      { endpoint: 'https://fcm.googleapis.com/fcm/send/x', keys: { p256dh: P256, auth: AUTH }, preferences: prefs },
    ]);
  });

  it('tells the host when the browser shows declarative messages itself, and where a tap goes', async () => {
    const f = fakes({ appUrl: 'https://studio.example.ts.net:8443/' });
    expect((await enableNotifications(f.client, f.browser, prefs)).ok).toBe(true);
    expect(f.calls[1]).toMatchObject([
      'push.subscribe',
      { preferences: prefs, declarative: { appUrl: 'https://studio.example.ts.net:8443/' } },
    ]);
    // WebKit's form puts a PushManager on the window; a browser without it gets the worker's form.
    expect(takesDeclarativePush({ pushManager: {} })).toBe(true);
    expect(takesDeclarativePush({})).toBe(false);
  });

  it('stops when permission is refused, and never takes over a subscription made for another key', async () => {
    const refused = fakes({ permission: 'denied' });
    expect((await enableNotifications(refused.client, refused.browser, prefs)).ok).toBe(false);
    expect(refused.calls).toEqual([]);
    const other = fakes({ existing: subscription(new Uint8Array(65).fill(9)) });
    const result = await enableNotifications(other.client, other.browser, prefs);
    expect(!result.ok && result.error.message).toMatch(/another computer/);
    expect(other.calls.map(([m]) => m)).toEqual(['push.status']);
    const same = fakes({ existing: subscription(KEY) });
    expect((await enableNotifications(same.client, same.browser, prefs)).ok).toBe(true);
    expect(same.subscribed).toEqual([]);
  });
});
