import { concatBytes, fromBase64UrlExact } from '../encoding.js';
import type { Result } from '../errors.js';
import { fail } from '../errors.js';
import { HOST_ID_BYTES } from '../key-sizes.js';
import { relayOrigin } from './host-auth.js';
import { decodeRelayTicket } from './relay-ticket.js';
import { encodeRelayFrame } from './relay-frame.js';

/**
 * Where things are on a relay, from its public URL (`https://relay.example.com`):
 *
 *   WS   /relay/host              a host's link
 *   WS   /relay/connect/:hostId   a device's connection to a host (first message: connect request)
 *   POST /relay/pair/:hostId      a pair request, forwarded to the host
 *   POST /relay/call/:hostId      a one-shot call, forwarded to the host
 */

export function isHostId(text: string): boolean {
  return text.length === 22 && fromBase64UrlExact(text, HOST_ID_BYTES) !== undefined;
}

/** The relay's base (origin and path, no trailing slash) with the scheme for `kind`; undefined
 * for anything that is not an http(s) or ws(s) URL. */
function base(relayUrl: string, kind: 'ws' | 'http'): string | undefined {
  const origin = relayOrigin(relayUrl);
  if (!origin) return undefined;
  const secure = origin.startsWith('https:');
  const scheme = kind === 'ws' ? (secure ? 'wss:' : 'ws:') : secure ? 'https:' : 'http:';
  return `${scheme}${origin.slice(origin.indexOf('//'))}${new URL(relayUrl).pathname.replace(/\/+$/, '')}`;
}

export function relayHostLinkUrl(relayUrl: string): string | undefined {
  const b = base(relayUrl, 'ws');
  return b && `${b}/relay/host`;
}

export function relayConnectUrl(relayUrl: string, hostId: string): string | undefined {
  const b = base(relayUrl, 'ws');
  return b && isHostId(hostId) ? `${b}/relay/connect/${hostId}` : undefined;
}

export function relayPairUrl(relayUrl: string, hostId: string): string | undefined {
  const b = base(relayUrl, 'http');
  return b && isHostId(hostId) ? `${b}/relay/pair/${hostId}` : undefined;
}

export function relayCallUrl(relayUrl: string, hostId: string): string | undefined {
  const b = base(relayUrl, 'http');
  return b && isHostId(hostId) ? `${b}/relay/call/${hostId}` : undefined;
}

/**
 * The device's first message on `/relay/connect/:hostId`: the host's public signing key (from
 * pairing) and the ticket (bytes, or its base64url text). The ticket travels in a message, never
 * in the URL, so it cannot end up in an access log. Every later message is opaque to the relay.
 */
export function encodeConnectRequest(hostSignPublicKey: Uint8Array, ticket: Uint8Array | string): Result<Uint8Array> {
  const decoded = decodeRelayTicket(ticket);
  if (!decoded.ok) return fail('ticket-malformed', decoded.error.message);
  const bytes = concatBytes(decoded.value.body, decoded.value.signature);
  return encodeRelayFrame({ type: 'connect', hostSignPublicKey, ticket: bytes });
}
