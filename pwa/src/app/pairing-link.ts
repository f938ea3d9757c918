import type { PairingLink, Result } from '@tether/shared-protocol';
import { parsePairingLink } from '@tether/shared-protocol';
import type { Store } from '../lib/store.js';
import { formatRoute } from '../lib/route.js';

/** Where a link is read from and dropped: the page's `location` and `history`. */
export interface AddressBar {
  location: Pick<Location, 'origin' | 'pathname' | 'hash'>;
  history: Pick<History, 'replaceState'>;
}

/**
 * A pairing link in the address (`…/#pair=1.…`): taken into the app, then dropped from the address
 * bar and the history (the fragment holds the pairing key, which is for this page alone), leaving
 * the Pairing screen's address. False when the address holds none.
 */
export function takePairingLink(target: Store<Result<PairingLink> | null>, bar: AddressBar): boolean {
  const { location, history } = bar;
  if (!location.hash.startsWith('#pair=')) return false;
  target.set(parsePairingLink(`${location.origin}${location.pathname}${location.hash}`));
  history.replaceState(null, '', formatRoute({ name: 'pair' }));
  return true;
}

/**
 * Takes a pairing link now, and each time one is opened in this page later: a link pasted into a
 * tab where the app is open already changes only the fragment, which loads nothing. Call before the
 * app listens for its own route changes, so that it sees the Pairing screen's address, never the
 * link.
 */
export function watchPairingLinks(target: Store<Result<PairingLink> | null>): () => void {
  const take = () => takePairingLink(target, { location, history });
  take();
  // Chromium and WebKit send popstate before hashchange for a fragment typed into the address.
  window.addEventListener('popstate', take);
  window.addEventListener('hashchange', take);
  return () => {
    window.removeEventListener('popstate', take);
    window.removeEventListener('hashchange', take);
  };
}
