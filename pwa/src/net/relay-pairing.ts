import type { PairingLink } from '@tether/shared-protocol';
import { relayOrigin, relayPairUrl } from '@tether/shared-protocol';
import { apiBaseFor, pairUrl, sameOrigin } from '../lib/api-urls.js';
import type { Unreachable } from './relay-paths.js';

/**
 * Where a pairing link is sent from this page: to the relay the page was loaded from when the link
 * names it (`POST /relay/pair/:hostId`, forwarded to the host), to the host itself when the page
 * is the host's (`POST /rc/pair`), or nowhere, with the reason, since the page may only reach its
 * own origin.
 */
export type PairingRoute =
  | { kind: 'direct' | 'relay'; apiBase: string; pairUrl: string }
  | { kind: 'elsewhere'; apiBase: string; unreachable: Unreachable };

export function pairingRoute(link: PairingLink, pageOrigin: string): PairingRoute {
  const apiBase = apiBaseFor(link.base, pageOrigin);
  if (link.relay && relayOrigin(link.relay.url) === pageOrigin) {
    const url = relayPairUrl(link.relay.url, link.relay.hostId);
    if (url) return { kind: 'relay', apiBase, pairUrl: url };
  }
  if (sameOrigin(apiBase, pageOrigin)) return { kind: 'direct', apiBase, pairUrl: pairUrl(apiBase) };
  const mixed = pageOrigin.startsWith('https:') && apiBase.startsWith('http:');
  return { kind: 'elsewhere', apiBase, unreachable: mixed ? 'mixed-content' : 'other-origin' };
}

/** Why this page cannot pair with the link, and what to do instead. */
export function pairingElsewhereText(reason: Unreachable, apiBase: string): string {
  return reason === 'mixed-content'
    ? `This link is for the computer at ${apiBase}, plain HTTP, and this page is HTTPS: browsers block that. Open the link with this device's camera app (or paste it into the address bar) on the same network, or start the computer with a relay (tether start --relay URL) and scan its new code.`
    : `This link is for the computer at ${apiBase}, and this page can only reach the computer it was opened from. Open the link with this device's camera app (or paste it into the address bar) instead.`;
}
