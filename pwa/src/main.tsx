import type { WebSocketConstructor } from '@tether/shared-protocol';
import { systemClock } from '@tether/shared-protocol';
import { render } from 'preact';
import { AppModel } from './app/app-model.js';
import { watchLifecycle } from './app/lifecycle.js';
import { watchPairingLinks } from './app/pairing-link.js';
import { watchReach } from './app/reachability.js';
import { registerServiceWorker } from './app/service-worker.js';
import { AppDb } from './data/app-db.js';
import { platformSubtle } from './net/platform-subtle.js';
import { watchPush } from './push/page-push.js';
import { pathConnect } from './net/relay-path-connect.js';
import { App } from './ui/app.js';
import { preloadMarkdown } from './ui/lazy-markdown.js';
import { loadSessionScreen } from './ui/lazy-session-screen.js';
import { afterMark } from './ui/perf-marks.js';
import { parseRoute } from './lib/route.js';
import './styles/base.css';
import './styles/layout.css';
import './styles/transcript.css';
import './styles/forms.css';
import './styles/terminal.css';
import './styles/steer.css';

// A share link opens the read-only viewer instead of the app: nothing of the app's state is made.
if (location.hash.startsWith('#view=')) {
  void import('./viewer/viewer-main.js').then((m) => m.startViewer(document.getElementById('app')!));
} else startApp();

function startApp(): void {
  const db = new AppDb();
  const app: AppModel = new AppModel({
    db,
    // Direct to the host when the page is the host's, else (or failing that) through a relay.
    connectTo: (_host, current) =>
      pathConnect({
        host: current,
        pageOrigin: location.origin,
        WebSocketImpl: WebSocket as unknown as WebSocketConstructor,
        clock: systemClock,
      }),
    now: () => Date.now(),
    subtle: platformSubtle(),
  });

  // Opened from a pairing link, now or later in this page: take it, and drop it from the address.
  watchPairingLinks(app.pairingLink);

  const opening = parseRoute(location.hash);
  if (opening.name === 'session') db.prefetchTranscript(opening.hostId, opening.sessionId);

  const { online } = watchLifecycle(app);
  const reach = watchReach(app, online);
  const root = document.getElementById('app')!;
  root.textContent = '';
  render(<App app={app} online={online} reach={reach} />, root);
  // What the first screen did not need, fetched once it is drawn. Opened on an approval's card (a
  // tapped notification), once the card is up: nothing competes with the connection it waits on.
  const preload = () => {
    void preloadMarkdown();
    void loadSessionScreen();
  };
  if (opening.name === 'approval') afterMark(['tether:approval-ready', 'tether:approval-shown'], 5000, preload);
  else setTimeout(preload, 0);
  void app.init();
  watchPush(app);
  registerServiceWorker();
}
