import { describe, expect, it } from 'vitest';
import { generateHostIdentity } from '../identity.js';
import { seededRandom } from '../testing/seeded-random.js';
import { decodeRelayFrame } from './relay-frame-decode.js';
import { encodeRelayTicket, signRelayTicket } from './relay-ticket.js';
import {
  encodeConnectRequest,
  isHostId,
  relayCallUrl,
  relayConnectUrl,
  relayHostLinkUrl,
  relayPairUrl,
} from './relay-urls.js';

const host = generateHostIdentity(seededRandom('relay urls'));

describe('relay addresses', () => {
  it('derive each endpoint from the relay URL', () => {
    expect(relayHostLinkUrl('https://relay.example.com/')).toBe('wss://relay.example.com/relay/host');
    expect(relayHostLinkUrl('http://127.0.0.1:7440')).toBe('ws://127.0.0.1:7440/relay/host');
    expect(relayConnectUrl('https://r.example/base', host.hostId)).toBe(
      `wss://r.example/base/relay/connect/${host.hostId}`,
    );
    expect(relayPairUrl('wss://r.example', host.hostId)).toBe(`https://r.example/relay/pair/${host.hostId}`);
    expect(relayCallUrl('https://r.example', host.hostId)).toBe(`https://r.example/relay/call/${host.hostId}`);
  });

  it('refuse what is not a relay URL or a host id', () => {
    expect(relayHostLinkUrl('javascript:alert(1)')).toBeUndefined();
    expect(relayConnectUrl('https://r.example', '../../admin')).toBeUndefined();
    expect(isHostId(host.hostId)).toBe(true);
    expect(isHostId('A'.repeat(23))).toBe(false);
  });

  it('make a connect request from the ticket text or bytes alike', () => {
    const ticket = signRelayTicket({ deviceId: 'B'.repeat(21) + 'A', expiresAt: 5 }, host.sign);
    const fromBytes = encodeConnectRequest(host.sign.publicKey, ticket);
    const fromText = encodeConnectRequest(host.sign.publicKey, encodeRelayTicket(ticket));
    expect(fromText).toEqual(fromBytes);
    if (!fromBytes.ok) throw new Error('unexpected');
    expect(decodeRelayFrame(fromBytes.value)).toMatchObject({ ok: true, value: { type: 'connect', ticket } });
    expect(encodeConnectRequest(host.sign.publicKey, 'nope')).toMatchObject({
      ok: false,
      error: { code: 'ticket-malformed' },
    });
  });
});
