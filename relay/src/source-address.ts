import { isIP } from 'node:net';

/**
 * The address a request comes from, as the relay uses it for rate limits and reports it to hosts.
 * The socket's peer address, unless that peer is a configured proxy (a load balancer terminating
 * TLS): then the last address that proxy appended to `X-Forwarded-For` (with its port, if the
 * proxy writes one, taken off). Only the last entry is taken: earlier ones were written by the
 * client and prove nothing. An entry that is no address is not believed: the proxy's own counts.
 */
export function sourceAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlySet<string>,
): string {
  const address = normalize(peer) ?? 'unknown';
  if (!trustedProxies.has(address) || !forwardedFor) return address;
  const last = forwardedFor.split(',').at(-1)?.trim();
  return normalize(last) ?? normalize(withoutPort(last)) ?? address;
}

/** `203.0.113.9:51234` and `[2001:db8::7]:443` (how some proxies write a client) without the port. */
function withoutPort(entry: string | undefined): string | undefined {
  const match = entry && /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!match || Number(match[3] ?? 0) > 65_535) return undefined;
  return match[1] ?? match[2];
}

/** An IP address in its plain form (`::ffff:1.2.3.4` as `1.2.3.4`); undefined if not an address. */
export function normalize(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const plain = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
  return isIP(plain) ? plain : undefined;
}
