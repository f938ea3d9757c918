import {
  RELAY_TICKET_TTL_MS,
  generateDeviceId,
  generateHostIdentity,
  verifyRelayTicket,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import { describe, expect, it } from 'vitest';
import { gatewayHarness } from '../../test/support/gateway-harness.js';
import { relayHandlers } from './relay-handlers.js';
import { RelayTickets } from './relay-tickets.js';

const random = seededRandom('relay tickets');
const host = generateHostIdentity(random);

describe('relay tickets', () => {
  it('are signed for one device, valid for the default lifetime, and checked by the relay against the host key', () => {
    const clock = new ManualClock();
    const tickets = new RelayTickets(['https://relay.example.com'], host.sign, clock);
    const deviceId = generateDeviceId(random);
    const issued = tickets.issue(deviceId);
    expect(issued).toMatchObject({ url: 'https://relay.example.com', expiresAt: clock.now() + RELAY_TICKET_TTL_MS });
    const check = (now: number) =>
      verifyRelayTicket(issued.ticket, {
        hostId: host.hostId,
        hostSignPublicKey: host.sign.publicKey,
        clock: { now: () => now },
      });
    expect(check(clock.now())).toEqual({
      ok: true,
      value: { v: 1, hostId: host.hostId, deviceId, expiresAt: issued.expiresAt },
    });
    // Past its expiry (and the 2-minute skew) the relay refuses it.
    expect(check(issued.expiresAt + 3 * 60_000)).toMatchObject({ ok: false, error: { code: 'ticket-expired' } });
    // Another host's key does not vouch for it.
    const other = generateHostIdentity(random);
    expect(
      verifyRelayTicket(issued.ticket, { hostId: other.hostId, hostSignPublicKey: other.sign.publicKey, clock }),
    ).toMatchObject({ ok: false, error: { code: 'ticket-wrong-host' } });
    expect(tickets.details(deviceId)).toMatchObject({ url: 'https://relay.example.com' });
    // One relay: nothing an older app does not know.
    expect('urls' in tickets.details(deviceId)).toBe(false);
  });

  it('name every relay the host keeps, and one ticket serves them all', () => {
    const tickets = new RelayTickets(['https://a.example', 'https://b.example'], host.sign, new ManualClock());
    const deviceId = generateDeviceId(random);
    expect(tickets.details(deviceId)).toMatchObject({
      url: 'https://a.example',
      urls: ['https://a.example', 'https://b.example'],
    });
    expect(tickets.issue(deviceId)).toMatchObject({ urls: ['https://a.example', 'https://b.example'] });
  });

  it('renew over the sealed channel for the calling device alone, or are unsupported without a relay', async () => {
    const clock = new ManualClock();
    const issuer: { tickets?: RelayTickets } = {};
    const h = gatewayHarness(
      relayHandlers(
        () => issuer.tickets,
        () => undefined,
      ),
    );
    const phone = await h.connect(['watch']);
    const none = await phone.request('relay.ticket', {});
    expect(none).toMatchObject({ t: 'res', error: { code: 'unsupported' } });
    expect(await phone.request('relay.status', {})).toMatchObject({ t: 'res', error: { code: 'unsupported' } });
    issuer.tickets = new RelayTickets(['https://relay.example.com'], h.identity.sign, clock);
    const answer = await phone.request('relay.ticket', {});
    if (answer.t !== 'res' || !('result' in answer)) throw new Error('expected a result');
    const result = answer.result as { ticket: string };
    const checked = verifyRelayTicket(result.ticket, {
      hostId: h.identity.hostId,
      hostSignPublicKey: h.identity.sign.publicKey,
      clock,
    });
    expect(checked).toMatchObject({ ok: true, value: { deviceId: phone.device.id } });
  });
});
