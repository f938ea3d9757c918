import { networkInterfaces } from 'node:os';

/**
 * A private address of this machine that is not loopback (10/8, 172.16/12, 192.168/16, fc00::/7),
 * for serving the app over plain HTTP on "the LAN": a page there is not a secure context.
 * Undefined when the machine has none (the test that needs one is skipped).
 */
export function privateLanAddress(): string | undefined {
  const candidates = Object.values(networkInterfaces())
    .flat()
    .filter((i) => i !== undefined && !i.internal);
  const v4 = candidates.find(
    (i) => i!.family === 'IPv4' && /^(10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/.test(i!.address),
  );
  if (v4) return v4.address;
  const v6 = candidates.find((i) => i!.family === 'IPv6' && /^f[cd][0-9a-f]{2}:/i.test(i!.address));
  return v6?.address;
}
