import { Store } from '../lib/store.js';
import type { AppModel } from './app-model.js';

/**
 * Ties connections to what the browser says about the network and the page: dial at once when
 * the device comes back online or the app comes back to the front (a phone suspends sockets in
 * the background), drop sockets when it goes offline, and write caches before the page hides.
 */
export function watchLifecycle(app: AppModel): { online: Store<boolean> } {
  const online = new Store(navigator.onLine);
  window.addEventListener('online', () => {
    online.set(true);
    app.reconnectAll();
  });
  window.addEventListener('offline', () => {
    online.set(false);
    app.redialAll();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') app.reconnectAll();
    else void app.flushAll();
  });
  window.addEventListener('pageshow', (event) => {
    // Restored from the back-forward cache: its sockets did not survive.
    if (event.persisted) app.reconnectAll();
  });
  window.addEventListener('pagehide', () => void app.flushAll());
  return { online };
}
