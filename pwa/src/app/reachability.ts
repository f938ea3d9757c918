import type { ClientState } from '@tether/shared-protocol';
import { Store } from '../lib/store.js';
import type { AppModel } from './app-model.js';

/**
 * Whether the app can reach its computers, from what it knows rather than what the browser says.
 * `navigator.onLine` is only a hint: Safari keeps it true on a Wi-Fi network with no route to the
 * computer, and some Chromium builds keep it true for a page the service worker served offline.
 *
 * - `reachable`: a path to some computer answers (or there is nothing to reach).
 * - `no-network`: the browser says there is no network and no connection is open.
 * - `unreachable`: the network looks up, but every computer's last attempt failed.
 * - `checking`: still dialling for the first time; nothing is said yet.
 */
export type Reach = 'reachable' | 'no-network' | 'unreachable' | 'checking';

export function reachOf(networkHint: boolean, states: readonly ClientState[]): Reach {
  if (states.some((s) => s.name === 'open')) return 'reachable';
  if (!networkHint) return 'no-network';
  const dialling = states.filter((s) => s.name === 'connecting' || s.name === 'waiting');
  if (dialling.length === 0) return 'reachable';
  if (dialling.some(answered)) return 'reachable';
  return dialling.every(failing) ? 'unreachable' : 'checking';
}

/** Something answered but refused this device (the host row says so): the path itself works. */
function answered(state: ClientState): boolean {
  return (
    state.name === 'waiting' && (state.error.code === 'handshake-failed' || state.error.code === 'version-unsupported')
  );
}

/** Failed at least once since the last open: waiting out a backoff, or dialling again after one. */
function failing(state: ClientState): boolean {
  return state.name === 'waiting' || (state.name === 'connecting' && state.attempt > 0);
}

/** A store of the app's reach, kept up to date with the network hint and every connection. */
export function watchReach(app: Pick<AppModel, 'allConnections' | 'connectionsVersion'>, network: Store<boolean>) {
  const reach = new Store<Reach>('checking');
  let unwatch: (() => void)[] = [];
  const update = () =>
    reach.set(
      reachOf(
        network.get(),
        app.allConnections().map((c) => c.status.get()),
      ),
    );
  const rewatch = () => {
    for (const off of unwatch) off();
    unwatch = app.allConnections().map((c) => c.status.subscribe(update));
    update();
  };
  network.subscribe(update);
  app.connectionsVersion.subscribe(rewatch);
  rewatch();
  return reach;
}
