import { systemClock } from '@tether/shared-protocol';
import type { AppModel } from '../app/app-model.js';
import { CLOSE_ANSWERED_MESSAGE, OPEN_MESSAGE } from './sw-push.js';
import { VisibilityReporter } from './visibility-report.js';

/**
 * The page's side of notifications: reports what is on screen to each host, goes where the service
 * worker says when a notification is tapped with the app open, and closes the notifications of
 * approvals answered while the app is open (on this device or another).
 */
export function watchPush(app: AppModel): void {
  const reporter = new VisibilityReporter(
    {
      connections: () => app.allConnections(),
      onConnectionsChange: (listener) => app.connectionsVersion.subscribe(listener),
      route: () => app.screen.get(),
      visible: () => document.visibilityState === 'visible',
    },
    systemClock,
  );
  reporter.report();
  app.screen.subscribe(() => reporter.report());
  document.addEventListener('visibilitychange', () => reporter.report());

  if (!window.isSecureContext || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<unknown>) => {
    const data = event.data as { type?: unknown; hash?: unknown } | null;
    if (data?.type === OPEN_MESSAGE && typeof data.hash === 'string' && data.hash.startsWith('#/')) {
      location.hash = data.hash;
    }
  });

  const followed = new WeakSet<object>();
  const follow = () => {
    for (const connection of app.allConnections()) {
      const hostId = connection.record.hostId;
      if (followed.has(connection)) continue;
      followed.add(connection);
      connection.approvals.subscribe((approvals) => {
        const pending = new Set(approvals.map((a) => a.id));
        void closeAnswered(hostId, pending);
      });
    }
  };
  app.connectionsVersion.subscribe(follow);
  follow();
}

/**
 * Asks the service worker to close the notifications of this host's approvals that are no longer
 * pending. The worker does it, not the page: it knows which approval it is answering from a
 * notification at this moment, whose outcome must not be closed with the question.
 */
async function closeAnswered(hostId: string, pending: ReadonlySet<string>): Promise<void> {
  const registration = await navigator.serviceWorker.getRegistration();
  registration?.active?.postMessage({ type: CLOSE_ANSWERED_MESSAGE, hostId, pending: [...pending] });
}
