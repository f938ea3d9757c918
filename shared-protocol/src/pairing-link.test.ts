import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PairingLink } from './pairing-link.js';
import { formatPairingLink, parsePairingLink } from './pairing-link.js';
import { seededRandom } from './testing/seeded-random.js';

const random = seededRandom('links');
const link: PairingLink = {
  base: 'https://laptop.tail1234.ts.net:7420',
  hostBoxPublicKey: random(32),
  pairingId: random(16),
  pairingKey: random(32),
};

function code(input: string): string {
  const r = parsePairingLink(input);
  return r.ok ? 'ok' : r.error.code;
}

describe('pairing link', () => {
  it('round-trips, with and without a relay hint', () => {
    const text = formatPairingLink(link);
    expect(text).toMatch(
      /^https:\/\/laptop\.tail1234\.ts\.net:7420\/#pair=1\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/,
    );
    expect(parsePairingLink(text)).toEqual({ ok: true, value: link });
    const withRelay = { ...link, relay: { hostId: 'AAAAAAAAAAAAAAAAAAAAAA', url: 'https://relay.example.com' } };
    expect(parsePairingLink(formatPairingLink(withRelay))).toEqual({ ok: true, value: withRelay });
  });

  it('names a relay over HTTPS, or over plain HTTP only on loopback', () => {
    const hint = (url: string) =>
      code(formatPairingLink({ ...link, relay: { hostId: 'AAAAAAAAAAAAAAAAAAAAAA', url } }));
    expect(hint('https://relay.example.com/tether')).toBe('ok');
    expect(hint('http://127.0.0.1:7430')).toBe('ok');
    expect(hint('http://localhost:7430')).toBe('ok');
    expect(hint('http://[::1]:7430')).toBe('ok');
    // Plain HTTP anywhere else would hand the phone a page without a secure context, or worse.
    expect(hint('http://relay.example.com')).toBe('link-malformed');
    expect(hint('http://192.168.1.5:7430')).toBe('link-malformed');
    expect(hint('http://127.0.0.1.evil.example')).toBe('link-malformed');
    expect(hint('javascript:alert(1)')).toBe('link-malformed');
  });

  it('keeps every secret in the fragment', () => {
    const text = formatPairingLink(link);
    expect(text.slice(0, text.indexOf('#'))).toBe('https://laptop.tail1234.ts.net:7420/');
  });

  it('parses a bare fragment (as the app sees location.hash)', () => {
    const text = formatPairingLink(link);
    const r = parsePairingLink(text.slice(text.indexOf('#')));
    expect(r.ok && r.value.pairingKey).toEqual(link.pairingKey);
  });

  it('says a cut-short link is truncated, at every cut point', () => {
    const text = formatPairingLink(link);
    const start = text.indexOf('#');
    for (let end = start + 1; end < text.length; end++) {
      expect(code(text.slice(0, end)), `cut at ${end}: ${text.slice(start, end)}`).toBe('link-truncated');
    }
  });

  it('says a link from a newer version is from a newer version', () => {
    expect(code(formatPairingLink(link).replace('#pair=1.', '#pair=2.'))).toBe('link-version');
    expect(code(formatPairingLink(link).replace('#pair=1.', '#pair=0.'))).toBe('link-malformed');
  });

  it('says other damage is malformed', () => {
    const text = formatPairingLink(link);
    expect(code('https://example.com/')).toBe('link-malformed');
    expect(code('https://example.com/#other=1')).toBe('link-malformed');
    expect(code(text.replace('#pair=1.', '#pair=x.'))).toBe('link-malformed');
    expect(code(`${text}.AA.BB`)).toBe('link-malformed');
    expect(code(text.replace(/#pair=1\../, '#pair=1.!'))).toBe('link-malformed');
    expect(code(`javascript:alert(1)//${text.slice(text.indexOf('#'))}`)).toBe('link-malformed');
    expect(code(`${text}.${'A'.repeat(30)}`)).toBe('link-malformed');
    expect(code('x'.repeat(5000))).toBe('link-malformed');
  });

  it('never throws on any input', () => {
    const text = formatPairingLink(link);
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.nat({ max: text.length }), (noise, at) => {
        for (const input of [noise, text.slice(0, at) + noise, text.slice(0, at) + noise + text.slice(at)]) {
          const r = parsePairingLink(input);
          expect(typeof r.ok).toBe('boolean');
          if (!r.ok) expect(['link-malformed', 'link-truncated', 'link-version']).toContain(r.error.code);
        }
      }),
    );
  });
});
