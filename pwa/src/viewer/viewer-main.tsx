import type { WebSocketConstructor } from '@tether/shared-protocol';
import { parseShareLink, systemClock } from '@tether/shared-protocol';
import { render } from 'preact';
import { linkErrorText } from '../ui/link-error-text.js';
import { ViewerConnection } from './viewer-connection.js';
import { ViewerPage } from './viewer-page.js';

/**
 * The page a share link opens (`#view=…`), instead of the app: no pairing, no storage, no service
 * worker; one session, followed live through the link's own key. Loaded on its own (main.tsx), so
 * the app's first screen carries none of it.
 */
export function startViewer(root: HTMLElement): void {
  const link = parseShareLink(`${location.origin}${location.pathname}${location.hash}`);
  if (!link.ok) {
    render(
      <p class="placeholder" role="alert">
        {linkErrorText(link.error).replace('pairing link', 'share link')}
      </p>,
      root,
    );
    return;
  }
  const viewer = new ViewerConnection(link.value, {
    pageOrigin: location.origin,
    WebSocketImpl: WebSocket as unknown as WebSocketConstructor,
    clock: systemClock,
  });
  render(<ViewerPage viewer={viewer} />, root);
  viewer.start();
  // Back in front or back online: dial now rather than after the backoff.
  const wake = () => document.visibilityState === 'visible' && viewer.client.reconnectNow();
  document.addEventListener('visibilitychange', wake);
  window.addEventListener('online', wake);
}
