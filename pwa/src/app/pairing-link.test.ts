import type { PairingLink, Result } from '@tether/shared-protocol';
import { formatPairingLink } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { Store } from '../lib/store.js';
import type { AddressBar } from './pairing-link.js';
import { takePairingLink } from './pairing-link.js';

const link: PairingLink = {
  base: 'https://laptop.example.ts.net:7420',
  hostBoxPublicKey: new Uint8Array(32).fill(1),
  pairingId: new Uint8Array(16).fill(2),
  pairingKey: new Uint8Array(32).fill(3),
};

/** An address bar at `hash`, recording what the history was told. */
function bar(hash: string): AddressBar & { replaced: string[] } {
  const replaced: string[] = [];
  return {
    location: { origin: 'https://laptop.example.ts.net:7420', pathname: '/', hash },
    history: { replaceState: (_data, _unused, url) => replaced.push(String(url)) },
    replaced,
  };
}

describe('a pairing link in the address', () => {
  it('is taken, and the address left on the Pairing screen in its place', () => {
    const target = new Store<Result<PairingLink> | null>(null);
    const address = bar(new URL(formatPairingLink(link)).hash);
    expect(takePairingLink(target, address)).toBe(true);
    expect(target.get()).toEqual({ ok: true, value: link });
    expect(address.replaced).toEqual(['#/pair']);
  });

  it('replaces a link taken before (a fresh one pasted after a failure)', () => {
    const target = new Store<Result<PairingLink> | null>(null);
    takePairingLink(target, bar(new URL(formatPairingLink(link)).hash));
    const fresh = { ...link, pairingId: new Uint8Array(16).fill(9) };
    expect(takePairingLink(target, bar(new URL(formatPairingLink(fresh)).hash))).toBe(true);
    expect(target.get()).toEqual({ ok: true, value: fresh });
  });

  it('a broken link is taken too, so the Pairing screen says what is wrong with it', () => {
    const target = new Store<Result<PairingLink> | null>(null);
    expect(takePairingLink(target, bar('#pair=1.nonsense'))).toBe(true);
    expect(target.get()?.ok).toBe(false);
  });

  it('leaves any other address alone', () => {
    const target = new Store<Result<PairingLink> | null>(null);
    for (const hash of ['', '#/', '#/pair', '#/h/abc/s/def']) {
      const address = bar(hash);
      expect(takePairingLink(target, address)).toBe(false);
      expect(address.replaced).toEqual([]);
    }
    expect(target.get()).toBeNull();
  });
});
