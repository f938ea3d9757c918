import { secureRandom, systemClock } from '@tether/shared-protocol';
import { AppDb } from '../data/app-db.js';
import { platformSubtle } from '../net/device-key.js';
import type { NotificationSpec } from './notification-view.js';
import { answerByOneShot } from './one-shot-answer.js';
import type { AppWindow, ShownNotification } from './sw-push.js';
import { CLOSE_ANSWERED_MESSAGE, MAX_PENDING_NAMED, SwPush } from './sw-push.js';

/** The few service worker globals this needs, typed here (the app's program uses DOM types). */
interface WorkerGlobal {
  registration: {
    scope: string;
    showNotification(title: string, options: object): Promise<void>;
    getNotifications(filter?: { tag?: string }): Promise<ShownNotification[]>;
  };
  clients: {
    matchAll(options: { type: 'window'; includeUncontrolled: boolean }): Promise<(AppWindow & { url: string })[]>;
    openWindow(url: string): Promise<unknown>;
  };
  location: { origin: string };
  addEventListener(type: 'push', listener: (event: PushLikeEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: ClickLikeEvent) => void): void;
  addEventListener(type: 'message', listener: (event: MessageLikeEvent) => void): void;
}

interface Waitable {
  waitUntil(promise: Promise<unknown>): void;
}
type PushLikeEvent = Waitable & { data: { text(): string } | null };
type ClickLikeEvent = Waitable & { notification: ShownNotification; action: string };
type MessageLikeEvent = Waitable & { data: unknown; source: { url?: string } | null };

/** Message a test sends to play a click on a notification: headless Chromium cannot click one. */
export const TEST_CLICK_MESSAGE = 'tether:test-notification-click';

/**
 * Wires notifications into the service worker: `push`, `notificationclick`, and the test's click.
 * The click message gives a page no power it lacks: a page of this origin can already read the
 * device key from IndexedDB and answer approvals itself.
 */
export function installPushHandlers(global: WorkerGlobal): void {
  const db = new AppDb();
  const maxActions = (globalThis as { Notification?: { maxActions?: number } }).Notification?.maxActions ?? 0;
  const scopeUrl = global.registration.scope;
  const push = new SwPush({
    showNotification: (spec: NotificationSpec) => global.registration.showNotification(spec.title, spec.options),
    getNotifications: (tag) => global.registration.getNotifications(tag !== undefined ? { tag } : {}),
    windows: () => global.clients.matchAll({ type: 'window', includeUncontrolled: true }),
    openWindow: (url) => global.clients.openWindow(url),
    scopeUrl,
    hosts: () => db.hosts(),
    answer: (record, approvalId, decision) =>
      answerByOneShot(record, approvalId, decision, {
        fetch: (input, init) => fetch(input, init),
        subtle: platformSubtle(),
        clock: systemClock,
        random: secureRandom,
        origin: global.location.origin,
      }),
    platform: { actions: maxActions > 0, icon: new URL('icons/icon-192.png', scopeUrl).href },
  });

  global.addEventListener('push', (event) => {
    let text: string | undefined;
    try {
      text = event.data?.text();
    } catch {
      text = undefined;
    }
    event.waitUntil(push.onPush(text));
  });
  global.addEventListener('notificationclick', (event) => {
    event.waitUntil(push.onClick(event.notification, event.action));
  });
  global.addEventListener('message', (event) => {
    const data = event.data as {
      type?: unknown;
      tag?: unknown;
      action?: unknown;
      hostId?: unknown;
      pending?: unknown;
    } | null;
    if (data?.type === CLOSE_ANSWERED_MESSAGE) {
      const { hostId, pending } = data;
      if (typeof hostId !== 'string' || !Array.isArray(pending) || pending.length > MAX_PENDING_NAMED) return;
      if (!pending.every((id): id is string => typeof id === 'string')) return;
      event.waitUntil(push.closeResolved(hostId, new Set(pending)));
      return;
    }
    if (data?.type !== TEST_CLICK_MESSAGE || typeof data.tag !== 'string' || typeof data.action !== 'string') return;
    const tag = data.tag;
    const action = data.action;
    event.waitUntil(
      global.registration.getNotifications({ tag }).then(async (shown) => {
        const notification = shown[0];
        if (notification) await push.onClick(notification, action);
      }),
    );
  });
}
