import { describe, expect, it } from 'vitest';
import { generateHostIdentity } from './identity.js';
import { signRelayTicket } from './relay/relay-ticket.js';
import type { ShareLink } from './share-link.js';
import { formatShareLink, isShareLink, parseShareLink, shareLinkHostId, viewerKeyPair } from './share-link.js';
import { toBase64Url } from './encoding.js';
import { seededRandom } from './testing/seeded-random.js';

const random = seededRandom('share links');
const host = generateHostIdentity(random);
const link: ShareLink = {
  base: 'https://laptop.tail1234.ts.net:7420',
  hostBoxPublicKey: host.box.publicKey,
  linkId: random(16),
  secret: random(32),
  sessionId: 's_3kT9x0aQ1bZc',
};

const code = (input: string) => {
  const r = parseShareLink(input);
  return r.ok ? 'ok' : r.error.code;
};

describe('share link', () => {
  it('round-trips, with and without a relay, every secret in the fragment', () => {
    const text = formatShareLink(link);
    expect(text.slice(0, text.indexOf('#'))).toBe('https://laptop.tail1234.ts.net:7420/');
    expect(isShareLink(text)).toBe(true);
    expect(parseShareLink(text)).toEqual({ ok: true, value: link });
    const ticket = signRelayTicket({ deviceId: toBase64Url(link.linkId), expiresAt: 1e12 }, host.sign);
    const relay = { url: 'https://relay.example.com/t', hostSignPublicKey: host.sign.publicKey, ticket };
    const withRelay = formatShareLink({ ...link, relay });
    const parsed = parseShareLink(withRelay);
    expect(parsed).toEqual({ ok: true, value: { ...link, relay } });
    expect(parsed.ok && shareLinkHostId(parsed.value.relay!)).toBe(host.hostId);
    // Short enough for a QR code a phone reads off a laptop's screen.
    expect(withRelay.length).toBeLessThan(420);
  });

  it('gives the same viewer key for the same secret, and another for another', () => {
    expect(viewerKeyPair(link.secret)).toEqual(viewerKeyPair(link.secret.slice()));
    expect(viewerKeyPair(random(32)).publicKey).not.toEqual(viewerKeyPair(link.secret).publicKey);
  });

  it('refuses what is not one, cut short, newer or damaged, with typed errors', () => {
    const text = formatShareLink(link);
    expect(code('https://x.example/#pair=1.abc')).toBe('link-malformed');
    expect(code(text.slice(0, text.length - 30))).toBe('link-truncated');
    expect(code(text.replace('#view=1.', '#view=2.'))).toBe('link-version');
    expect(code(text.replace('#view=1.', '#view=0.'))).toBe('link-malformed');
    expect(code(`${text}.x.y`)).toBe('link-malformed');
    expect(code(text.replace('https://', 'javascript://'))).toBe('link-malformed');
    const badSession = formatShareLink({ ...link, sessionId: 'a b' });
    expect(code(badSession)).toBe('link-malformed');
    const plainRelay = formatShareLink({
      ...link,
      relay: { url: 'http://relay.example.com', hostSignPublicKey: host.sign.publicKey, ticket: random(105) },
    });
    expect(code(plainRelay)).toBe('link-malformed');
  });
});
