import type { PrecacheEntry } from 'workbox-precaching';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { installPushHandlers } from './push/sw-install.js';

/**
 * The service worker: precaches the built app (the list is injected at build time) and answers
 * every navigation with the cached shell, so the app opens offline. API calls (`/rc/…`) are never
 * cached or answered here: they go to the network, or fail offline as they should.
 */

declare global {
  // Written as `self.__WB_MANIFEST` because the build replaces exactly that text with the file list.
  interface Window {
    __WB_MANIFEST: (string | PrecacheEntry)[];
  }
}

interface ServiceWorkerScope {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(
    type: 'install' | 'activate',
    listener: (event: { waitUntil(p: Promise<unknown>): void }) => void,
  ): void;
}

// The page's TypeScript program uses DOM types; the few worker globals this file needs are typed here.
const sw = self as unknown as ServiceWorkerScope;

precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();
registerRoute(new NavigationRoute(createHandlerBoundToURL('index.html'), { denylist: [/\/rc\//] }));

// A new version takes over at once: the shell is tiny and the app keeps its state in IndexedDB.
sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()));
sw.addEventListener('activate', (event) => event.waitUntil(sw.clients.claim()));

// Notifications: push messages, their actions and taps (push/sw-push.ts).
installPushHandlers(self as unknown as Parameters<typeof installPushHandlers>[0]);
