import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
function fakeTailscale(options: {
  https: boolean;
  addresses?: string[];
  state?: string;
  /** `status` hangs this many seconds and then says nothing (`exec`, so the timeout's kill ends it). */
  delay?: number;
}): string {
  const path = join(dir, 'tailscale');
  const status = JSON.stringify({
    BackendState: options.state ?? 'Running',
    Self: {
      DNSName: 'laptop.tail1234.ts.net.',
      TailscaleIPs: options.addresses ?? ['100.100.1.2', 'fd7a:115c:a1e0::2'],
    },
    CertDomains: options.https ? ['laptop.tail1234.ts.net'] : null,
  });
  writeFileSync(
    path,
    `#!/bin/sh
case "$1" in
  status) ${options.delay ? `exec sleep ${options.delay}` : `echo '${status}'`} ;;
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
    if (!plan.ok || !plan.value.plan) throw new Error(JSON.stringify(plan));
    expect(plan.value.plan).toMatchObject({
      address: '100.100.1.2',
      kind: 'tailscale',
      tls: { name: 'laptop.tail1234.ts.net' },
    });
    const renewed = await plan.value.plan.renew!();
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
      value: { plan: undefined, why: expect.stringContaining('no phone can reach it') as string },
    });
  });

  describe('a 100.64.0.0/10 address is Tailscale only when Tailscale says so', () => {
    const cgnat = { name: 'wwan0', address: '100.100.1.2', family: 'IPv4' as const, internal: false };
    const plan = (tailscaleBinary: string, bind = 'auto', extra: object = {}) =>
      planListen({ bind, port: 0, tailscaleBinary, interfaces: () => [cgnat], ...extra }, dir);

    it('present and listing the address: listens there, as Tailscale', async () => {
      expect(await plan(fakeTailscale({ https: false }))).toMatchObject({
        ok: true,
        value: { plan: { address: '100.100.1.2', kind: 'tailscale' } },
      });
    });

    it('present but not listing it (another VPN, a carrier NAT): refuses, says why and what to do', async () => {
      const result = await plan(fakeTailscale({ https: false, addresses: ['100.90.0.1'] }));
      expect(result).toMatchObject({ ok: true, value: { plan: undefined } });
      const message = result.ok && 'why' in result.value ? result.value.why : '';
      expect(message).toMatch(/carrier-grade NAT/);
      expect(message).toMatch(/Tailscale does not list it/);
      expect(message).toContain('--bind 100.100.1.2');
    });

    it('present but stopped: its old addresses do not count', async () => {
      const result = await plan(fakeTailscale({ https: false, state: 'Stopped' }));
      expect(result).toMatchObject({ ok: true, value: { plan: undefined } });
      expect(result.ok && 'why' in result.value && result.value.why).toMatch(/Tailscale is not running/);
    });

    it('absent: refuses, saying Tailscale is not installed', async () => {
      const result = await plan(join(dir, 'no-tailscale-here'));
      expect(result).toMatchObject({ ok: true, value: { plan: undefined } });
      expect(result.ok && 'why' in result.value && result.value.why).toMatch(/not installed/);
    });

    it('too slow to answer: gives up after the timeout and refuses', async () => {
      const result = await plan(fakeTailscale({ https: false, delay: 5 }), 'auto', { tailscaleTimeoutMs: 300 });
      expect(result).toMatchObject({ ok: true, value: { plan: undefined } });
      expect(result.ok && 'why' in result.value && result.value.why).toMatch(/did not answer/);
    });

    it('named with --bind: listens there anyway, as the person asked', async () => {
      expect(await plan(join(dir, 'no-tailscale-here'), '100.100.1.2')).toMatchObject({
        ok: true,
        value: { plan: { address: '100.100.1.2', kind: 'cgnat' } },
      });
    });

    it('asks Tailscale nothing when no address is in its ranges', async () => {
      const lan = { name: 'eth0', address: '192.168.1.20', family: 'IPv4' as const, internal: false };
      const marker = join(dir, 'asked');
      const binary = join(dir, 'tailscale-marker');
      writeFileSync(
        binary,
        `#!/bin/sh
touch ${marker}
exit 1
`,
      );
      chmodSync(binary, 0o755);
      expect(
        await planListen({ bind: 'auto', port: 0, tailscaleBinary: binary, interfaces: () => [lan] }, dir),
      ).toMatchObject({ ok: true, value: { plan: { kind: 'lan' } } });
      expect(existsSync(marker)).toBe(false);
    });
  });

  it('renews two weeks before expiry', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    expect(needsRenewal(new Date('2026-12-10T00:00:00Z'), now)).toBe(true);
    expect(needsRenewal(new Date('2027-01-30T00:00:00Z'), now)).toBe(false);
  });
});
