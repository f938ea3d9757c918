import { isIP } from 'node:net';

/**
 * The address a request comes from, as the relay uses it for rate limits and reports it to hosts.
 * The socket's peer address, unless that peer is a configured proxy (a load balancer terminating
 * TLS): then the last address that proxy appended to `X-Forwarded-For`. Only the last entry is
 * taken: earlier ones were written by the client and prove nothing.
 */
export function sourceAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlySet<string>,
): string {
  const address = normalize(peer) ?? 'unknown';
  if (!trustedProxies.has(address) || !forwardedFor) return address;
  const last = forwardedFor.split(',').at(-1)?.trim();
  return normalize(last) ?? address;
}

/** An IP address in its plain form (`::ffff:1.2.3.4` as `1.2.3.4`); undefined if not an address. */
export function normalize(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) ? plain : undefined;
}
