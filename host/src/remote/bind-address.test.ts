import { describe, expect, it } from 'vitest';
import type { Interface } from './bind-address.js';
import { chooseBindAddress, classifyAddress, hostPort } from './bind-address.js';

const iface = (name: string, address: string, internal = false): Interface => ({
  name,
  address,
  family: address.includes(':') ? 'IPv6' : 'IPv4',
  internal,
});

describe('address classes', () => {
  it.each([
    // 100.64.0.0/10 is shared address space (RFC 6598): carrier-grade NAT and other VPNs use it
    // too, so only Tailscale itself can say an address there is its own.
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['100.128.0.1', 'public'],
    ['100.63.255.255', 'public'],
    // Tailscale's IPv6 prefix is a unique local address: private either way.
    ['fd7a:115c:a1e0::1', 'lan'],
    ['::ffff:100.100.1.2', 'cgnat'],
    ['10.1.2.3', 'lan'],
    ['172.16.0.1', 'lan'],
    ['172.32.0.1', 'public'],
    ['192.168.1.20', 'lan'],
    ['fd12:3456::1', 'lan'],
    ['fc00::1', 'lan'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['8.8.8.8', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['192.0.2.2', 'public'],
    ['::ffff:192.168.1.2', 'lan'],
    ['not an address', 'public'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('is Tailscale only when Tailscale lists the address', () => {
    const tailscale = ['100.101.102.103', 'fd7a:115c:a1e0::7'];
    expect(classifyAddress('100.101.102.103', tailscale)).toBe('tailscale');
    expect(classifyAddress('100.101.102.104', tailscale)).toBe('cgnat');
    expect(classifyAddress('fd7a:115c:a1e0::7', tailscale)).toBe('tailscale');
    expect(classifyAddress('FD7A:115C:A1E0:0:0:0:0:0007', tailscale)).toBe('tailscale');
    expect(classifyAddress('fd7a:115c:a1e0::9', tailscale)).toBe('lan');
    // Listing an address outside Tailscale's ranges does not make it Tailscale's.
    expect(classifyAddress('192.168.1.20', ['192.168.1.20'])).toBe('lan');
  });
});

describe('choosing where to listen', () => {
  const lo = iface('lo', '127.0.0.1', true);
  const publicOnly = [lo, iface('eth0', '203.0.113.5'), iface('eth0', '2001:db8::5')];
  const both = [
    lo,
    iface('eth0', '192.168.1.20'),
    iface('tailscale0', 'fd7a:115c:a1e0::7'),
    iface('tailscale0', '100.101.102.103'),
  ];

  const confirmed = ['100.101.102.103', 'fd7a:115c:a1e0::7'];

  it('prefers Tailscale (IPv4 first), then the LAN', () => {
    expect(chooseBindAddress('auto', both, confirmed)).toMatchObject({
      ok: true,
      value: {
        address: '100.101.102.103',
        kind: 'tailscale',
        interface: 'tailscale0',
      },
    });
    expect(chooseBindAddress('lan', both)).toMatchObject({ ok: true, value: { address: '192.168.1.20', kind: 'lan' } });
    expect(chooseBindAddress('auto', [lo, iface('eth0', 'fd00::2')])).toMatchObject({
      ok: true,
      value: {
        address: 'fd00::2',
        kind: 'lan',
      },
    });
  });

  it('never picks a public address, and says what would fix it', () => {
    const r = chooseBindAddress('auto', publicOnly);
    expect(r).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(!r.ok && r.error.message).toMatch(/Tailscale/);
    expect(chooseBindAddress('tailscale', [lo, iface('eth0', '192.168.1.20')])).toMatchObject({
      ok: false,
      error: { code: 'unavailable' },
    });
    expect(chooseBindAddress('auto', [])).toMatchObject({ ok: false, error: { code: 'unavailable' } });
  });

  it('refuses every interface and public addresses by name, with the reason', () => {
    for (const address of ['0.0.0.0', '::']) {
      const r = chooseBindAddress(address, both);
      expect(r).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
      expect(!r.ok && r.error.message).toMatch(/every interface/);
    }
    expect(chooseBindAddress('8.8.8.8', both)).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
  });

  it('takes a 100.64.0.0/10 address Tailscale does not list for unknown: never picked, and says why', () => {
    const cgnat = [lo, iface('wwan0', '100.72.14.9')];
    const r = chooseBindAddress('auto', cgnat, []);
    expect(r).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    const message = !r.ok ? r.error.message : '';
    expect(message).toContain('100.72.14.9 (wwan0)');
    expect(message).toMatch(/carrier-grade NAT/);
    expect(message).toContain('--bind 100.72.14.9');
    expect(chooseBindAddress('tailscale', cgnat, [])).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(chooseBindAddress('lan', cgnat, [])).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    // With a LAN address too, the LAN wins; Tailscale's own address would have won.
    expect(chooseBindAddress('auto', [...cgnat, iface('eth0', '192.168.1.20')], [])).toMatchObject({
      ok: true,
      value: {
        address: '192.168.1.20',
        kind: 'lan',
      },
    });
    expect(chooseBindAddress('auto', cgnat, ['100.72.14.9'])).toMatchObject({ ok: true, value: { kind: 'tailscale' } });
  });

  it('listens on an unconfirmed 100.64.0.0/10 address only when it is named', () => {
    expect(chooseBindAddress('100.72.14.9', [], [])).toMatchObject({
      ok: true,
      value: { address: '100.72.14.9', kind: 'cgnat' },
    });
    expect(chooseBindAddress('100.72.14.9', [], ['100.72.14.9'])).toMatchObject({
      ok: true,
      value: { kind: 'tailscale' },
    });
  });

  it('allows loopback only when named', () => {
    expect(chooseBindAddress('127.0.0.1', [])).toMatchObject({ ok: true, value: { kind: 'loopback' } });
    expect(chooseBindAddress('auto', [lo])).toMatchObject({ ok: false });
  });

  it('writes IPv6 hosts in brackets', () => {
    expect(hostPort('fd00::2', 7420)).toBe('[fd00::2]:7420');
    expect(hostPort('10.0.0.1', 80)).toBe('10.0.0.1:80');
  });
});
