import { useState } from 'preact/hooks';
import type { WriteKind } from '../data/storage-health.js';
import { failedWrites } from '../data/storage-health.js';
import { useApp } from './app-context.js';
import { useStore } from './use-store.js';

/**
 * What the app cannot do right now, across the top: no computer answers (and whether the network
 * itself is down), this device's storage refused a write, or not a secure context.
 */
export function Banners() {
  const { app, reach } = useApp();
  const state = useStore(reach);
  const hostCount = useStore(app.hosts).length;
  return (
    <>
      {state === 'no-network' && (
        <p class="banner offline" role="status" data-banner="offline" data-reason="no-network">
          No network. Showing what this device saved; it catches up when the connection is back.
        </p>
      )}
      {state === 'unreachable' && (
        <p class="banner offline" role="status" data-banner="offline" data-reason="unreachable">
          Can't reach {hostCount > 1 ? 'your computers' : 'your computer'}: it may be asleep, or not on this network.
          Showing what this device saved; it catches up when the computer answers.
        </p>
      )}
      <StorageBanner />
      {!window.isSecureContext && (
        <details class="banner" data-banner="insecure">
          <summary>
            Plain HTTP: no install to the Home Screen, no notifications, no in-app camera. Pairing, following sessions
            and approvals work.
          </summary>
          <p>
            Those need HTTPS. Reach this computer over Tailscale HTTPS (<code>tailscale cert</code>), give{' '}
            <code>tether start</code> your own certificate (<code>--tls-cert</code>, <code>--tls-key</code>), or go
            through a relay. To pair now, open the QR code with this device's camera app.
          </p>
        </details>
      )}
    </>
  );
}

/** What a failed write of each kind costs the person. */
const LOST: Record<WriteKind, string> = {
  host: "a change to a computer's pairing: it may be gone when the app is opened again",
  'session-list': 'a session list for offline use: what shows without a connection may be out of date',
  transcript: 'a transcript for offline use: what shows without a connection may be out of date',
  outbox: 'a message waiting to be sent: it is lost if the app is closed before it goes',
};

/**
 * A write to this device's storage failed (full, or blocked as in some private windows): says
 * what was not saved and how many writes failed since the app opened. OK hides it until the next
 * failure.
 */
function StorageBanner() {
  const { app } = useApp();
  const health = useStore(app.storage);
  const [seen, setSeen] = useState(0);
  const failed = failedWrites(health);
  if (failed <= seen || !health.last) return null;
  return (
    <p class="banner offline" role="alert" data-banner="storage" data-failed={failed}>
      This device could not save {LOST[health.last]}. Its storage may be full, or blocked in a private window.{' '}
      {failed === 1 ? 'One write failed.' : `${failed} writes failed.`}{' '}
      <button type="button" onClick={() => setSeen(failed)}>
        OK
      </button>
    </p>
  );
}
