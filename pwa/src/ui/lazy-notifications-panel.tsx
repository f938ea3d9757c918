import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';

type Panel = FunctionComponent<{ host: HostRecord }>;

let loaded: Panel | undefined;

/**
 * A computer's notification settings, fetched the first time they are opened: setting push up is
 * no part of the first screen (nor of the approval card a notification opens). The service worker
 * precaches the file with the rest, so offline it loads at once.
 */
export function LazyNotificationsPanel({ host }: { host: HostRecord }) {
  const [panel, setPanel] = useState(() => loaded);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (panel) return undefined;
    let live = true;
    import('./notifications-panel.js').then(
      (module) => {
        loaded = module.NotificationsPanel;
        if (live) setPanel(() => loaded);
      },
      (reason: unknown) => live && setError(reason instanceof Error ? reason.message : String(reason)),
    );
    return () => {
      live = false;
    };
  }, [panel]);
  if (panel) {
    const Shown = panel;
    return <Shown host={host} />;
  }
  return (
    <p class="placeholder" role={error ? 'alert' : 'status'}>
      {error ? `The notification settings could not be loaded: ${error}` : 'Loading…'}
    </p>
  );
}
