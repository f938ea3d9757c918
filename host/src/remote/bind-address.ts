import type { CodedError, Result } from '@tether/shared-protocol';
import { failWith, ok } from '@tether/shared-protocol';
import type { NetworkInterfaceInfo } from 'node:os';
import { isIP } from 'node:net';

/**
 * Which address the remote-control server listens on. Exactly one: the Tailscale address first,
 * else a private LAN address; loopback only when named; never every interface or a public
 * address, because that would offer the pairing endpoint to the whole internet.
 *
 * Tailscale gives out addresses from 100.64.0.0/10, but that range is shared address space
 * (RFC 6598): carrier-grade NAT on mobile and home connections and other VPNs use it too, and
 * there the provider's other customers may reach the address. So an address in it counts as
 * Tailscale only when Tailscale itself lists it (`tailscale status`); otherwise it is `cgnat`,
 * never chosen on its own, and used only when named with `--bind`.
 */

export type AddressKind = 'tailscale' | 'cgnat' | 'lan' | 'loopback' | 'link-local' | 'unspecified' | 'public';

export type BindMode = 'auto' | 'tailscale' | 'lan';

export interface Interface {
  name: string;
  address: string;
  family: 'IPv4' | 'IPv6';
  internal: boolean;
}

export interface BindAddress {
  address: string;
  kind: 'tailscale' | 'cgnat' | 'lan' | 'loopback';
  interface?: string;
}

/**
 * Where to listen, or why not: `invalid-params` when the address asked for is refused (public,
 * every interface), `unavailable` when there is nothing suitable to listen on.
 */
export type BindChoice = Result<BindAddress, CodedError<'invalid-params' | 'unavailable'>>;

function ipv4(address: string): number[] | undefined {
  const parts = address.split('.').map(Number);
  return parts.length === 4 && parts.every((p) => Number.isInteger(p) && p >= 0 && p <= 255) ? parts : undefined;
}

/** Expands an IPv6 address into its eight 16-bit groups. */
function ipv6(address: string): number[] | undefined {
  const plain = address.split('%')[0]!.toLowerCase();
  if (isIP(plain) !== 6) return undefined;
  const [head, tail] = plain.includes('::') ? plain.split('::') : [plain, undefined];
  const parse = (s: string | undefined) => (s ? s.split(':').filter((x) => x !== '') : []);
  const a = parse(head);
  const b = parse(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const expand = (groups: string[]) =>
    groups.flatMap((g) => {
      const v4 = ipv4(g);
      return v4 ? [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!] : [parseInt(g, 16)];
    });
  const ea = expand(a);
  const eb = expand(b);
  const zeros = tail === undefined ? 0 : 8 - ea.length - eb.length;
  return [...ea, ...Array<number>(zeros).fill(0), ...eb];
}

/** The same address however it is written (IPv6 groups expanded, IPv4 as is). */
function canonical(address: string): string {
  const v6 = ipv6(address);
  return v6 ? v6.map((g) => g.toString(16)).join(':') : address;
}

/** Whether the address is in a range Tailscale uses: 100.64.0.0/10 or fd7a:115c:a1e0::/48. */
export function inTailscaleRange(address: string): boolean {
  const v4 = ipv4(address);
  if (v4) return v4[0] === 100 && v4[1]! >= 64 && v4[1]! <= 127;
  const v6 = ipv6(address);
  if (!v6) return false;
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff)
    return inTailscaleRange(`${v6[6]! >> 8}.${v6[6]! & 255}.${v6[7]! >> 8}.${v6[7]! & 255}`);
  return v6[0] === 0xfd7a && v6[1] === 0x115c && v6[2] === 0xa1e0;
}

/**
 * What kind of address this is. `tailscale` lists the addresses Tailscale reports as its own: an
 * address in Tailscale's ranges counts as Tailscale only if it is there.
 */
export function classifyAddress(address: string, tailscale: readonly string[] = []): AddressKind {
  if (inTailscaleRange(address) && tailscale.some((t) => canonical(t) === canonical(address))) return 'tailscale';
  const v4 = ipv4(address);
  if (v4) {
    const [a, b] = v4 as [number, number];
    if (address === '0.0.0.0') return 'unspecified';
    if (a === 127) return 'loopback';
    if (a === 100 && b >= 64 && b <= 127) return 'cgnat';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'lan';
    if (a === 169 && b === 254) return 'link-local';
    return 'public';
  }
  const v6 = ipv6(address);
  if (!v6) return 'public';
  if (v6.every((g) => g === 0)) return 'unspecified';
  if (v6.slice(0, 7).every((g) => g === 0) && v6[7] === 1) return 'loopback';
  // Tailscale's fd7a:115c:a1e0::/48 not listed by Tailscale is still a unique local address.
  if ((v6[0]! & 0xfe00) === 0xfc00) return 'lan';
  if ((v6[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    return classifyAddress(`${v6[6]! >> 8}.${v6[6]! & 255}.${v6[7]! >> 8}.${v6[7]! & 255}`);
  }
  return 'public';
}

export function interfacesFrom(map: NodeJS.Dict<NetworkInterfaceInfo[]>): Interface[] {
  const out: Interface[] = [];
  for (const [name, infos] of Object.entries(map)) {
    for (const info of infos ?? [])
      out.push({ name, address: info.address, family: info.family, internal: info.internal });
  }
  return out;
}

const FIX =
  'Install Tailscale (https://tailscale.com) on this computer and the phone, join a private network, or use --relay.';

/**
 * `mode`: a BindMode, or one address named on the command line. `tailscale`: the addresses
 * Tailscale reports as this computer's (empty when it is absent, stopped or silent); `unconfirmed`
 * says why, for the message when an address in its range is passed over.
 */
export function chooseBindAddress(
  mode: string,
  interfaces: readonly Interface[],
  tailscale: readonly string[] = [],
  unconfirmed = 'Tailscale does not list it',
): BindChoice {
  if (mode !== 'auto' && mode !== 'tailscale' && mode !== 'lan') {
    const kind = classifyAddress(mode, tailscale);
    if (kind === 'unspecified') {
      return failWith(
        'invalid-params',
        `${mode} would listen on every interface, including public ones. Name one private address, or use --bind auto.`,
      );
    }
    if (kind === 'public' || kind === 'link-local') {
      return failWith(
        'invalid-params',
        `${mode} is not a private address: Tether never listens where the internet can reach it. Use a Tailscale or LAN address (--bind auto), or --relay.`,
      );
    }
    return ok({ address: mode, kind });
  }
  const candidates = interfaces.filter((i) => !i.internal);
  const pick = (kind: 'tailscale' | 'lan') => {
    const matching = candidates.filter((i) => classifyAddress(i.address, tailscale) === kind);
    return matching.find((i) => i.family === 'IPv4') ?? matching[0];
  };
  const order: readonly ('tailscale' | 'lan')[] = mode === 'auto' ? ['tailscale', 'lan'] : [mode];
  for (const kind of order) {
    const found = pick(kind);
    if (found) return ok({ address: found.address, kind, interface: found.name });
  }
  const what =
    mode === 'auto'
      ? 'a Tailscale or private LAN address'
      : mode === 'tailscale'
        ? 'a Tailscale address'
        : 'a private LAN address';
  const passedOver = candidates.filter((i) => classifyAddress(i.address, tailscale) === 'cgnat');
  const why =
    passedOver.length > 0
      ? ` ${passedOver.map((i) => `${i.address} (${i.name})`).join(', ')} ${passedOver.length === 1 ? 'is' : 'are'} in 100.64.0.0/10, which Tailscale uses but so do carrier-grade NAT and other VPNs, where other customers of the network may reach it; ${unconfirmed}. If you trust that network, name the address: --bind ${passedOver[0]!.address}.`
      : '';
  return failWith('unavailable', `This computer has no ${what}, so no phone can reach it yet.${why} ${FIX}`);
}

/** `host:port` as it appears in a URL and a Host header. */
export function hostPort(address: string, port: number): string {
  return `${address.includes(':') ? `[${address}]` : address}:${port}`;
}
