/**
 * Registers the service worker that precaches the app shell, so that the app opens offline.
 * Only in a secure context: elsewhere (plain http on a LAN address) registration would fail, and
 * the app runs as a page that needs the network to load.
 */
export function registerServiceWorker(): void {
  if (!window.isSecureContext || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('./sw.js', { scope: './' }).catch(() => {
      // The app works without it (no offline start); nothing to tell the person.
    });
  });
}
