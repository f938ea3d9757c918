import { relayOrigin, relayUrlsOf } from '@tether/shared-protocol';
import type { HostRecord } from '../data/records.js';
import { sameOrigin, webSocketUrl } from '../lib/api-urls.js';

/**
 * Which ways this page can reach a paired host. The page's Content-Security-Policy lets it open
 * connections to its own origin (and, on a host that has a relay, to that relay), so:
 *
 * - **direct** when the page was loaded from the host itself (its `/rc/ws`);
 * - **relay** when the host gave this device a relay ticket: through the relay the page was
 *   loaded from (a relay origin is the relay, so a load-balanced name just works), or, on the
 *   host's own page, through each relay the host keeps, in its order;
 * - **none** otherwise, with the reason, so the app can say it rather than fail silently: an
 *   `http://` host from an HTTPS page is mixed content, which browsers block outright.
 */
export type HostPath = { kind: 'direct'; url: string } | { kind: 'relay'; relayUrl: string };
export type PathKind = HostPath['kind'];
export type Unreachable = 'mixed-content' | 'other-origin';

export interface PathPlan {
  /** In the order to try them: direct first (one hop fewer), then the relays. */
  paths: HostPath[];
  /** Why there is no path at all. */
  unreachable?: Unreachable;
}

export function planPaths(host: Pick<HostRecord, 'apiBase' | 'relay'>, pageOrigin: string): PathPlan {
  const paths: HostPath[] = [];
  const relays = host.relay ? relayUrlsOf(host.relay) : [];
  // A host paired through a relay has the relay's origin as its base: nothing direct is there.
  const pairedViaRelay = relays.some((url) => relayOrigin(url) === relayOrigin(host.apiBase));
  const onHost = !pairedViaRelay && sameOrigin(host.apiBase, pageOrigin);
  if (onHost) {
    // The host's page may connect to every relay the host keeps (its policy lists them): each in
    // turn, as the host gave them, so a relay that is down is passed over for the next.
    paths.push({ kind: 'direct', url: webSocketUrl(host.apiBase) });
    for (const relayUrl of relays) paths.push({ kind: 'relay', relayUrl });
  } else if (relays.length > 0) {
    // A relay's page may connect to its own origin only: the relay, under the name the page was
    // loaded from (a load-balanced name just works), or the URL the host gave for it.
    const relayUrl = relays.find((url) => relayOrigin(url) === pageOrigin) ?? pageOrigin;
    paths.push({ kind: 'relay', relayUrl });
  }
  if (paths.length > 0) return { paths };
  const mixed = pageOrigin.startsWith('https:') && host.apiBase.startsWith('http:');
  return { paths, unreachable: mixed ? 'mixed-content' : 'other-origin' };
}

/** What to tell the person when a host has no path from this page. */
export function unreachableText(reason: Unreachable, apiBase: string): string {
  return reason === 'mixed-content'
    ? `This page is HTTPS and the computer is at ${apiBase}, plain HTTP: browsers block that. Open the app from ${apiBase} on the same network, or start the computer with a relay (tether start --relay URL) and pair again.`
    : `This page cannot reach the computer at ${apiBase}. Open the app from ${apiBase}, or pair again through a relay.`;
}
