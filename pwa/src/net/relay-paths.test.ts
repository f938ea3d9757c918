import {
  RELAY_TICKET_RENEW_BEFORE_MS,
  RELAY_TICKET_TTL_MS,
  encodeRelayTicket,
  generateDeviceId,
  generateHostIdentity,
  parsePairingLink,
  formatPairingLink,
  signRelayTicket,
} from '@tether/shared-protocol';
import { seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { pairingElsewhereText, pairingRoute } from './relay-pairing.js';
import { planPaths } from './relay-paths.js';
import { needsRelayTicket, relaysFromInfo, renewRelayTicket } from './relay-ticket-renewal.js';

const random = seededRandom('relay paths');
const identity = generateHostIdentity(random);
const relay = { url: 'https://relay.example.com', ticket: 'T' };

describe('the paths from this page to a host', () => {
  it('go direct on the host’s own page, and through its relay when it has one', () => {
    const lan = 'http://192.168.1.5:7420';
    expect(planPaths({ apiBase: lan }, lan)).toEqual({
      paths: [{ kind: 'direct', url: 'ws://192.168.1.5:7420/rc/ws' }],
    });
    expect(planPaths({ apiBase: lan, relay }, lan).paths).toEqual([
      { kind: 'direct', url: 'ws://192.168.1.5:7420/rc/ws' },
      { kind: 'relay', relayUrl: 'https://relay.example.com' },
    ]);
  });

  it('on a relay’s page go through that page’s origin: a load-balanced or other node of the relay works', () => {
    const paired = { apiBase: 'https://relay.example.com', relay };
    expect(planPaths(paired, 'https://relay.example.com').paths).toEqual([
      { kind: 'relay', relayUrl: 'https://relay.example.com' },
    ]);
    expect(planPaths(paired, 'https://eu.relay.example.com').paths).toEqual([
      { kind: 'relay', relayUrl: 'https://eu.relay.example.com' },
    ]);
    // Paired directly on the LAN, then opened on the relay's page (the link named the relay).
    expect(planPaths({ apiBase: 'http://192.168.1.5:7420', relay }, 'https://relay.example.com').paths).toEqual([
      { kind: 'relay', relayUrl: 'https://relay.example.com' },
    ]);
  });

  it('on the host’s own page try every relay the host keeps, in its order; on a relay’s page, that relay alone', () => {
    const lan = 'http://192.168.1.5:7420';
    const two = { ...relay, urls: ['https://relay.example.com', 'https://spare.example.net'] };
    expect(planPaths({ apiBase: lan, relay: two }, lan).paths).toEqual([
      { kind: 'direct', url: 'ws://192.168.1.5:7420/rc/ws' },
      { kind: 'relay', relayUrl: 'https://relay.example.com' },
      { kind: 'relay', relayUrl: 'https://spare.example.net' },
    ]);
    // Paired on the spare's page: nothing direct there, and that page reaches its own origin only.
    expect(planPaths({ apiBase: 'https://spare.example.net', relay: two }, 'https://spare.example.net').paths).toEqual([
      { kind: 'relay', relayUrl: 'https://spare.example.net' },
    ]);
  });

  it('say why there is none: mixed content from an HTTPS page, or another origin', () => {
    expect(planPaths({ apiBase: 'http://192.168.1.5:7420' }, 'https://relay.example.com')).toEqual({
      paths: [],
      unreachable: 'mixed-content',
    });
    expect(planPaths({ apiBase: 'https://other.ts.net' }, 'https://relay.example.com')).toEqual({
      paths: [],
      unreachable: 'other-origin',
    });
  });
});

describe('where a pairing link is sent', () => {
  const link = (base: string, relayUrl?: string) => {
    const text = formatPairingLink({
      base,
      hostBoxPublicKey: identity.box.publicKey,
      pairingId: random(16),
      pairingKey: random(32),
      ...(relayUrl ? { relay: { hostId: identity.hostId, url: relayUrl } } : {}),
    });
    const parsed = parsePairingLink(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    return parsed.value;
  };

  it('to the relay the page was loaded from when the link names it, else to the host', () => {
    expect(
      pairingRoute(link('https://relay.example.com', 'https://relay.example.com'), 'https://relay.example.com'),
    ).toEqual({
      kind: 'relay',
      apiBase: 'https://relay.example.com',
      pairUrl: `https://relay.example.com/relay/pair/${identity.hostId}`,
    });
    // A LAN link with a relay hint, pasted into the relay's app: paired through the relay.
    expect(
      pairingRoute(link('http://192.168.1.5:7420', 'https://relay.example.com'), 'https://relay.example.com'),
    ).toMatchObject({
      kind: 'relay',
      apiBase: 'http://192.168.1.5:7420',
    });
    expect(
      pairingRoute(link('http://192.168.1.5:7420', 'https://relay.example.com'), 'http://192.168.1.5:7420'),
    ).toEqual({
      kind: 'direct',
      apiBase: 'http://192.168.1.5:7420',
      pairUrl: 'http://192.168.1.5:7420/rc/pair',
    });
  });

  it('nowhere from an HTTPS page to a plain-HTTP host without a relay, saying so', () => {
    const route = pairingRoute(link('http://192.168.1.5:7420'), 'https://relay.example.com');
    expect(route).toEqual({ kind: 'elsewhere', apiBase: 'http://192.168.1.5:7420', unreachable: 'mixed-content' });
    expect(pairingElsewhereText('mixed-content', 'http://192.168.1.5:7420')).toMatch(/browsers block that/);
  });
});

describe('relay ticket renewal', () => {
  const deviceId = generateDeviceId(random);
  const ticketUntil = (expiresAt: number) => ({
    url: 'https://relay.example.com',
    ticket: encodeRelayTicket(signRelayTicket({ deviceId, expiresAt }, identity.sign)),
  });
  const now = 1_700_000_000_000;

  it('asks when the ticket nears expiry, or when there is none and the host has a relay', () => {
    expect(needsRelayTicket({ relay: ticketUntil(now + RELAY_TICKET_TTL_MS) }, { features: [] }, now)).toBe(false);
    expect(
      needsRelayTicket({ relay: ticketUntil(now + RELAY_TICKET_RENEW_BEFORE_MS - 1) }, { features: [] }, now),
    ).toBe(true);
    expect(needsRelayTicket({ relay: { url: 'https://r', ticket: 'garbage' } }, { features: [] }, now)).toBe(true);
    expect(needsRelayTicket({}, { features: ['relay'] }, now)).toBe(true);
    expect(needsRelayTicket({}, { features: [] }, now)).toBe(false);
  });

  it('keeps the new ticket, and nothing when the host no longer has a relay', async () => {
    const fresh = ticketUntil(now + RELAY_TICKET_TTL_MS);
    const calls: string[] = [];
    const answering = {
      call: (method: string) => {
        calls.push(method);
        return Promise.resolve({ ok: true as const, value: { ...fresh, expiresAt: now + RELAY_TICKET_TTL_MS } });
      },
    };
    expect(await renewRelayTicket(answering as never, {}, { features: ['relay'] }, now)).toEqual(fresh);
    expect(calls).toEqual(['relay.ticket']);
    const refusing = {
      call: () => Promise.resolve({ ok: false as const, error: { code: 'unsupported', message: '' } }),
    };
    expect(
      await renewRelayTicket(refusing as never, { relay: ticketUntil(now) }, { features: [] }, now),
    ).toBeUndefined();
    expect(await renewRelayTicket(answering as never, { relay: fresh }, { features: ['relay'] }, now)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });
});

describe('the host’s relays, on every connect', () => {
  it('are kept when host.info names another list, and left alone when it names the same or none', () => {
    const paired = { relay };
    expect(relaysFromInfo(paired, {})).toBeUndefined();
    expect(relaysFromInfo(paired, { relays: ['https://relay.example.com'] })).toBeUndefined();
    expect(relaysFromInfo({}, { relays: ['https://relay.example.com'] })).toBeUndefined();
    const added = relaysFromInfo(paired, { relays: ['https://relay.example.com', 'https://spare.example.net'] });
    expect(added).toEqual({ ...relay, urls: ['https://relay.example.com', 'https://spare.example.net'] });
    expect(relaysFromInfo({ relay: added }, { relays: ['https://spare.example.net'] })).toEqual({
      ...relay,
      urls: ['https://spare.example.net'],
    });
  });
});
