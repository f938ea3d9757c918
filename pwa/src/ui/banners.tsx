import { useApp } from './app-context.js';
import { useStore } from './use-store.js';

/**
 * What the app cannot do right now, across the top: no computer answers (and whether the network
 * itself is down), or not a secure context.
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
