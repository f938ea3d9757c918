import { parsePairingLink } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, settle } from '../../test/support/gateway-harness.js';
import { FakeRelay } from '../../test/support/fake-relay.js';
import { CONTENT_SECURITY_POLICY, contentSecurityPolicy } from '../remote/http-app.js';
import { HostRelay } from './host-relay.js';

function relayFor(url: string) {
  const h = gatewayHarness();
  const fake = new FakeRelay(h.clock, h.random);
  fake.origin = new URL(url).origin;
  const made = HostRelay.create({
    urls: [url],
    identity: h.identity,
    gateway: h.gateway,
    clock: h.clock,
    random: h.random,
    dial: fake.dial,
  });
  return { h, fake, made };
}

describe("the host's relay", () => {
  it('takes an https:// relay, or plain http:// only on loopback', () => {
    expect(relayFor('https://relay.example.com/').made.ok).toBe(true);
    expect(relayFor('http://127.0.0.1:7430').made.ok).toBe(true);
    const lan = relayFor('http://192.168.1.9:7430').made;
    expect(lan).toMatchObject({ ok: false, error: { code: 'invalid-params' } });
    expect(relayFor('ftp://relay.example.com').made.ok).toBe(false);
  });

  it("hands out pairing links on the relay's origin that name the host and the relay", () => {
    const { h, made } = relayFor('https://relay.example.com');
    if (!made.ok) throw new Error(made.error.message);
    const relay = made.value;
    const onRelay = parsePairingLink(relay.pairLink((base) => h.gateway.pairing.currentLink(base)).link);
    expect(onRelay.ok && onRelay.value.base).toBe('https://relay.example.com');
    expect(onRelay.ok && onRelay.value.relay).toEqual({ hostId: h.identity.hostId, url: 'https://relay.example.com' });
    // A direct link keeps its base and gains the hint: the same pairing key, two ways to reach it.
    const direct = h.gateway.pairing.currentLink('http://192.168.1.5:7420').link;
    const hinted = parsePairingLink(relay.withHint(direct));
    expect(hinted.ok && hinted.value.base).toBe('http://192.168.1.5:7420');
    expect(hinted.ok && hinted.value.relay?.url).toBe('https://relay.example.com');
    expect(onRelay.ok && hinted.ok && onRelay.value.pairingKey).toEqual(hinted.ok && hinted.value.pairingKey);
  });

  it("lets the host's own pages connect to the relay, and to nothing else", () => {
    const { made } = relayFor('https://relay.example.com');
    if (!made.ok) throw new Error(made.error.message);
    expect(made.value.connectSources()).toEqual(['https://relay.example.com', 'wss://relay.example.com']);
    const policy = contentSecurityPolicy(made.value.connectSources());
    expect(policy).toContain("connect-src 'self' https://relay.example.com wss://relay.example.com;");
    expect(policy.replace(' https://relay.example.com wss://relay.example.com', '')).toBe(CONTENT_SECURITY_POLICY);
    // Nothing that could end the directive or add another gets in.
    expect(contentSecurityPolicy(["https://x; script-src 'unsafe-inline'"])).toBe(CONTENT_SECURITY_POLICY);
  });

  it('says where it stands, for tether status', async () => {
    const { made } = relayFor('https://relay.example.com');
    if (!made.ok) throw new Error(made.error.message);
    const relay = made.value;
    expect(relay.status()).toMatchObject({ state: 'connecting', connections: 0 });
    relay.start();
    await settle();
    expect(relay.status()).toMatchObject({ url: 'https://relay.example.com', state: 'linked' });
    expect(relay.message()).toBe('phones anywhere reach this host through the relay at https://relay.example.com');
    // Each relay with its own state and why: what `relay.status` answers the app.
    expect(relay.standings()).toEqual([expect.objectContaining({ url: 'https://relay.example.com', state: 'linked' })]);
    relay.stop();
    expect(relay.status().state).toBe('stopped');
  });
});
