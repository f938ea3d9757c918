import { useApp } from './app-context.js';
import { useStore } from './use-store.js';

/**
 * What a screen shows until the paired computers are read: "Loading…", and, when this browser's
 * storage has not answered for a while, why and what to do (it is held by another page of the
 * app, as WebKit lets a suspended page do; nothing this page can undo).
 */
export function HostsLoading() {
  const { app } = useApp();
  const stalled = useStore(app.storageStalled);
  if (!stalled) return <p class="placeholder">Loading…</p>;
  return (
    <p class="placeholder" role="status" data-storage-stalled="true">
      This browser's storage is not answering, so this device can't read which computers it is paired with yet. Another
      Tether tab or window may be holding it: close the others, or quit and reopen the browser.
    </p>
  );
}
