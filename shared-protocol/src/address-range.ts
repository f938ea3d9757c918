/**
 * The range a network address counts under for rate limits and per-address caps, the same on the
 * host and the relay. An IPv4 address is itself (a LAN or a carrier hands out one per subscriber);
 * an IPv6 address is its /64, since whoever holds one address of a /64 can take any other of it
 * for free, and keying on the full address would give one client 2^64 budgets. An IPv4-mapped
 * address (`::ffff:192.0.2.1`) is the IPv4 address; a zone (`%eth0`) is ignored. Anything that is
 * not an IP address is its own range, unchanged.
 *
 * Pure string work, no `node:net`: this package also runs in the browser.
 */
export function addressRange(address: string): string {
  const bare = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const groups = ipv6Groups(bare);
  if (!groups) return bare;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, '').toLowerCase())
    .join(':')}::/64`;
}

function isIPv4(text: string): boolean {
  const parts = text.split('.');
  return (
    parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255 && (p === '0' || p[0] !== '0'))
  );
}

/** The eight 16-bit groups of an IPv6 address in hex, `::` expanded; undefined if it is not one. */
function ipv6Groups(text: string): string[] | undefined {
  if (!text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string, last: boolean): string[] | undefined => {
    if (part === '') return [];
    const out: string[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(piece);
      else if (last && i === pieces.length - 1 && isIPv4(piece)) {
        // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) is the last two groups.
        const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number];
        out.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
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
  return [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
}
