import type { PairPage, Scope } from '@tether/shared-protocol';
import { DEFAULT_DEVICE_SCOPES, LIMITED_DEVICE_SCOPES } from '@tether/shared-protocol';

export interface PairRequestInfo {
  id: string;
  label: string;
  /** The 6-digit confirmation code the phone shows too. */
  code: string;
  /** Of the device's public key. */
  fingerprint: string;
  createdAt: number;
  /** Whether the request came over a secure channel (TLS, or loopback). */
  secure: boolean;
  /** Where the phone loaded the app from, and how the host knows. */
  page: PairPage;
  /** What the device may do when allowed without choosing (less over plain HTTP or from a page
   * this host did not serve). */
  scopes: Scope[];
}

/** How a pair request reached the host, as the transport adapter knows it. */
export interface PairChannel {
  /**
   * True for TLS (or a relay, whose app origin is HTTPS) and for loopback: nobody on the network
   * could have served the phone another app. False for plain HTTP on a network address.
   */
  secure: boolean;
  /** Where the app that sent it was loaded from (the browser's `Origin`, or the relay it came through). */
  page: PairPage;
}

/**
 * What a device may do when the person allows it without choosing. Whoever serves the app decides
 * what it does on the phone: the app from this host's own page over a secure channel (or a program
 * holding the link, with no page at all) gets everything but admin; the app from a relay's page or
 * another site, or over plain HTTP (where anyone on the network could have changed the page), gets
 * only watch and approve, and more only when the person asks for it at the computer.
 */
export function defaultScopes(channel: PairChannel): readonly Scope[] {
  const ownPage = channel.page.from === 'host' || channel.page.from === 'none';
  return channel.secure && ownPage ? DEFAULT_DEVICE_SCOPES : LIMITED_DEVICE_SCOPES;
}
