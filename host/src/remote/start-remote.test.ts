import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { needsRenewal, planListen } from './start-remote.js';

let dir: string;
const tailscaleIface = { name: 'tailscale0', address: '100.100.1.2', family: 'IPv4' as const, internal: false };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tether-plan-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in for the `tailscale` CLI: status as JSON, and `cert` made with openssl. */
function fakeTailscale(options: { https: boolean }): string {
  const path = join(dir, 'tailscale');
  const status = JSON.stringify({
    Self: { DNSName: 'laptop.tail1234.ts.net.', TailscaleIPs: ['100.100.1.2', 'fd7a:115c:a1e0::2'] },
    CertDomains: options.https ? ['laptop.tail1234.ts.net'] : null,
  });
  writeFileSync(
    path,
    `#!/bin/sh
case "$1" in
  status) echo '${status}' ;;
  cert)
    ${options.https ? '' : 'echo "500 Internal Server Error: your Tailscale account does not support getting TLS certs" >&2; exit 1'}
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 90 -subj /CN=$6 \\
      -addext "subjectAltName=DNS:$6" -keyout "$5" -out "$3" 2>/dev/null ;;
  *) exit 2 ;;
esac
`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe('planning where to listen', () => {
  it('with --tailscale-cert: binds the Tailscale address and serves its MagicDNS name with a fresh certificate', async () => {
    const binary = fakeTailscale({ https: true });
    const plan = await planListen(
      { bind: 'auto', port: 0, tailscaleCert: true, tailscaleBinary: binary, interfaces: () => [tailscaleIface] },
      dir,
    );
    if (!plan.ok || !plan.value) throw new Error(JSON.stringify(plan));
    expect(plan.value).toMatchObject({
      address: '100.100.1.2',
      kind: 'tailscale',
      tls: { name: 'laptop.tail1234.ts.net' },
    });
    const renewed = await plan.value.renew!();
    expect(renewed?.validTo.getTime()).toBeGreaterThan(Date.now() + 80 * 86400_000);
  });

  it('says how to enable Tailscale certificates when the tailnet refuses', async () => {
    const binary = fakeTailscale({ https: false });
    const plan = await planListen(
      { bind: 'auto', port: 0, tailscaleCert: true, tailscaleBinary: binary, interfaces: () => [tailscaleIface] },
      dir,
    );
    expect(plan.ok).toBe(false);
    expect(!plan.ok && plan.error.message).toMatch(/HTTPS Certificates/);
  });

  it('says Tailscale is missing when its command is', async () => {
    const plan = await planListen(
      { bind: 'auto', port: 0, tailscaleCert: true, tailscaleBinary: join(dir, 'nope'), interfaces: () => [] },
      dir,
    );
    expect(!plan.ok && plan.error.message).toMatch(/not installed/);
  });

  it('runs without remote control, and says why, when nothing suitable exists', async () => {
    const plan = await planListen(
      {
        bind: 'auto',
        port: 0,
        interfaces: () => [{ name: 'eth0', address: '203.0.113.9', family: 'IPv4', internal: false }],
      },
      dir,
    );
    expect(plan).toMatchObject({
      ok: true,
      value: undefined,
      message: expect.stringContaining('no phone can reach it') as string,
    });
  });

  it('renews two weeks before expiry', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    expect(needsRenewal(new Date('2026-12-10T00:00:00Z'), now)).toBe(true);
    expect(needsRenewal(new Date('2027-01-30T00:00:00Z'), now)).toBe(false);
  });
});
