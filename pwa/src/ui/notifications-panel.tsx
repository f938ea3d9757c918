import type { PushPreferences } from '@tether/shared-protocol';
import { DEFAULT_PUSH_PREFERENCES } from '@tether/shared-protocol';
import { useEffect, useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';
import {
  browserPush,
  browserPushEnvironment,
  disableNotifications,
  enableNotifications,
  pushAvailability,
} from '../push/push-setup.js';
import { useApp } from './app-context.js';

const WHY_NOT: Record<Exclude<ReturnType<typeof pushAvailability>, 'ready'>, string> = {
  insecure:
    'Notifications need HTTPS: this page is plain HTTP, where browsers give no push. Reach the computer over HTTPS (Tailscale, your own certificate, or a relay).',
  'ios-browser':
    'On iPhone and iPad, notifications come only to the app added to the Home Screen: Share, then "Add to Home Screen", and open it from there. There, a notification has no buttons: tap it to answer in the app.',
  unsupported: 'This browser cannot receive push notifications.',
  denied: "Notifications are blocked for this site. Allow them in the browser's site settings, then come back here.",
};

/**
 * Settings for one computer's notifications: switched on from a click (iOS wants a user gesture),
 * with what to be told about. Explains when push cannot work here and why.
 */
export function NotificationsPanel({ host }: { host: HostRecord }) {
  const { app } = useApp();
  const connection = app.connection(host.hostId);
  const availability = pushAvailability(browserPushEnvironment());
  const [endpoint, setEndpoint] = useState<string | undefined>(undefined);
  const [preferences, setPreferences] = useState<PushPreferences>(DEFAULT_PUSH_PREFERENCES);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!connection || availability !== 'ready') return;
    let live = true;
    void (async () => {
      const status = await connection.client.call('push.status', {});
      const current = await browserPush()
        .current()
        .catch(() => null);
      if (!live || !status.ok || !current) return;
      const mine = status.value.subscriptions.find((s) => s.endpoint === current.endpoint);
      if (!mine) return;
      setEndpoint(mine.endpoint);
      setPreferences(mine.preferences);
    })();
    return () => {
      live = false;
    };
  }, [connection, availability]);

  if (availability !== 'ready') {
    return (
      <div class="notifications" data-notifications={availability}>
        <p class="row-meta">{WHY_NOT[availability]}</p>
      </div>
    );
  }

  const save = async (next: PushPreferences) => {
    if (!connection) return;
    setBusy(true);
    const result = await enableNotifications(connection.client, browserPush(), next);
    setBusy(false);
    if (result.ok) {
      setEndpoint(result.value.endpoint);
      setPreferences(next);
      setMessage('Notifications are on for this computer.');
    } else setMessage(result.error.message);
  };
  const off = async () => {
    if (!connection || !endpoint) return;
    setBusy(true);
    const result = await disableNotifications(connection.client, endpoint);
    setBusy(false);
    if (!result.ok) return setMessage(result.error.message);
    setEndpoint(undefined);
    setMessage('Notifications are off for this computer.');
  };
  const toggle = (key: keyof PushPreferences) => (event: Event) => {
    const next = { ...preferences, [key]: (event.currentTarget as HTMLInputElement).checked };
    if (endpoint) void save(next);
    else setPreferences(next);
  };

  return (
    <div class="notifications" data-notifications={endpoint ? 'on' : 'off'}>
      <fieldset disabled={busy}>
        <legend>Notify me when</legend>
        <label>
          <input type="checkbox" checked={preferences.approvals} onChange={toggle('approvals')} /> an approval waits
        </label>
        <label>
          <input type="checkbox" checked={preferences.runFinished} onChange={toggle('runFinished')} /> a run finishes
        </label>
        <label>
          <input type="checkbox" checked={preferences.runFailed} onChange={toggle('runFailed')} /> a run fails
        </label>
      </fieldset>
      <div class="row-actions">
        {endpoint ? (
          <button type="button" disabled={busy} onClick={() => void off()}>
            Turn off notifications
          </button>
        ) : (
          <button type="button" class="primary" disabled={busy} onClick={() => void save(preferences)}>
            Turn on notifications
          </button>
        )}
      </div>
      {message && (
        <p class="row-meta" role="status">
          {message}
        </p>
      )}
    </div>
  );
}
