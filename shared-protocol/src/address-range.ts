/**
 * The range a network address counts under for rate limits and per-address caps, the same on the
 * host and the relay. An IPv4 address is itself (a LAN or a carrier hands out one per subscriber);
 * an IPv6 address is its /64, since whoever holds one address of a /64 can take any other of it
 * for free, and keying on the full address would give one client 2^64 budgets. An IPv4-mapped
 * address (`::ffff:192.0.2.1`) is the IPv4 address; a zone (`%eth0`) is ignored. Anything that is
 * not an IP address is its own range, unchanged.
 *
 * A translator's addresses are the exception: behind NAT64 (or SIIT in front of an IPv6-only
 * server) every IPv4 client shows up inside one prefix, so a /64 would put them all in one range
 * and let one of them spend everyone's budget. The well-known prefix `64:ff9b::/96` (RFC 6052)
 * carries the client's IPv4 address in its last 32 bits: the range is that IPv4 address, as if
 * the client had come in over IPv4. The local-use prefix `64:ff9b:1::/48` (RFC 8215) may carry it
 * at any of RFC 6052's places after the /48, which only the translator's operator knows: there
 * every bit counts (the whole address is the range), so each embedded address is a range of its
 * own whichever layout was chosen. Only a translator writes source addresses in these prefixes.
 *
 * Pure string work, no `node:net`: this package also runs in the browser.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const groups = ipv6Groups(bare);
  if (!groups) return bare;
  if (startsWith(groups, IPV4_MAPPED) || startsWith(groups, NAT64_WELL_KNOWN)) return ipv4Of(groups[6]!, groups[7]!);
  if (startsWith(groups, NAT64_LOCAL_USE)) return groups.map(hex).join(':');
  return `${groups.slice(0, 4).map(hex).join(':')}::/64`;
}

/** `::ffff:0:0/96`: an IPv4 address on an IPv6 socket. */
const IPV4_MAPPED = [0, 0, 0, 0, 0, 0xffff];
/** `64:ff9b::/96`, NAT64's well-known prefix. */
const NAT64_WELL_KNOWN = [0x64, 0xff9b, 0, 0, 0, 0];
/** `64:ff9b:1::/48`, NAT64's local-use prefix. */
const NAT64_LOCAL_USE = [0x64, 0xff9b, 1];

function startsWith(groups: readonly number[], prefix: readonly number[]): boolean {
  return prefix.every((g, i) => groups[i] === g);
}

const hex = (group: number) => group.toString(16);

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return (
    parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p === '0' || p[0] !== '0'))
  );
}

/** The eight 16-bit groups of an IPv6 address, `::` expanded; undefined if it is not one. */
function ipv6Groups(text: string): number[] | undefined {
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string, last: boolean): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(parseInt(piece, 16));
      else if (last && i === pieces.length - 1 && isIPv4(piece)) {
        // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) is the last two groups.
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else return undefined;
    }
    return out;
  };
  if (halves.length === 1) {
    const all = parse(text, true);
    return all && all.length === 8 ? all : undefined;
  }
  const left = parse(halves[0]!, false);
  const right = parse(halves[1]!, true);
  if (!left || !right || left.length + right.length > 7) return undefined;
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}
