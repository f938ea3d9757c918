import { useEffect, useState } from 'preact/hooks';
import type { HostRecord } from '../data/records.js';
import type * as RelayPanelModule from './relay-panel.js';

/**
 * The computer's relays, fetched the first time the person opens them from its row (few ever
 * do, and no screen needs them to start). Until then, or if the fetch fails, it says so.
 */
let loaded: typeof RelayPanelModule | undefined;
let loading: Promise<typeof RelayPanelModule> | undefined;

export function LazyRelayPanel({ host }: { host: HostRecord }) {
  const [module, setModule] = useState(loaded);
  const [failed, setFailed] = useState('');
  useEffect(() => {
    if (module) return undefined;
    let live = true;
    loading ??= import('./relay-panel.js').then((m) => (loaded = m));
    loading.then(
      (m) => live && setModule(m),
      (error: unknown) => {
        loading = undefined;
        if (live) setFailed(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      live = false;
    };
  }, [module]);
  if (module) return <module.RelayPanel host={host} />;
  return (
    <p class="row-meta" role={failed ? 'alert' : 'status'}>
      {failed ? `The relays could not be shown: ${failed}` : 'Loading…'}
    </p>
  );
}
