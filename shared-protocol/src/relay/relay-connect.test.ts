import { describe, expect, it } from 'vitest';
import type { WebSocketLike } from '../link/transport.js';
import { DeviceChannel } from '../client/device-channel.js';
import { generateBoxKeyPair, generateDeviceId, generateHostIdentity } from '../identity.js';
import { ManualClock } from '../testing/manual-clock.js';
import { seededRandom } from '../testing/seeded-random.js';
import { RelayCloseCode, transportCloseToError } from './relay-close-codes.js';
import { relayConnect } from './relay-connect.js';
import { decodeRelayFrame } from './relay-frame-decode.js';
import { encodeRelayTicket, signRelayTicket } from './relay-ticket.js';

const random = seededRandom('relay connect');
const host = generateHostIdentity(random);
const deviceId = generateDeviceId(random);

/** A WebSocket stand-in that records what is sent and lets the test open and close it. */
class FakeSocket implements WebSocketLike {
  static last: FakeSocket | undefined;
  binaryType = 'blob';
  readyState = 0;
  readonly sent: Uint8Array[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor(readonly url: string) {
    FakeSocket.last = this;
  }
  send(data: Uint8Array) {
    this.sent.push(data);
  }
  close() {}
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
}

function connectTo(ticket: () => string) {
  return relayConnect({
    relayUrl: 'https://relay.example.com',
    hostId: host.hostId,
    hostSignPublicKey: host.sign.publicKey,
    ticket,
    WebSocketImpl: FakeSocket,
  });
}

describe('reaching a host through a relay', () => {
  it('dials the connect endpoint and sends the connect request first, with the ticket read at that moment', async () => {
    let ticket = encodeRelayTicket(signRelayTicket({ deviceId, expiresAt: 1 }, host.sign));
    const connect = connectTo(() => ticket);
    const first = connect();
    FakeSocket.last!.open();
    const transport = await first;
    expect(FakeSocket.last!.url).toBe(`wss://relay.example.com/relay/connect/${host.hostId}`);
    expect(FakeSocket.last!.binaryType).toBe('arraybuffer');
    const sent = decodeRelayFrame(FakeSocket.last!.sent[0]!);
    expect(sent.ok && sent.value.type === 'connect' && encodeRelayTicket(sent.value.ticket)).toBe(ticket);
    transport.send(Uint8Array.of(9));
    expect(FakeSocket.last!.sent[1]).toEqual(Uint8Array.of(9));

    // A renewed ticket is what the next attempt presents.
    ticket = encodeRelayTicket(signRelayTicket({ deviceId, expiresAt: 2 }, host.sign));
    const second = connect();
    FakeSocket.last!.open();
    await second;
    const again = decodeRelayFrame(FakeSocket.last!.sent[0]!);
    expect(again.ok && again.value.type === 'connect' && encodeRelayTicket(again.value.ticket)).toBe(ticket);
  });

  it('refuses to dial with a ticket that does not parse', async () => {
    FakeSocket.last = undefined;
    await expect(connectTo(() => 'not a ticket')()).rejects.toThrow(/ticket/);
    expect(FakeSocket.last).toBeUndefined();
  });

  it("reports the relay's refusal of a ticket by its stable code", async () => {
    const connect = connectTo(() => encodeRelayTicket(signRelayTicket({ deviceId, expiresAt: 1 }, host.sign)));
    const pending = connect();
    FakeSocket.last!.open();
    const transport = await pending;
    const clock = new ManualClock();
    const opened = DeviceChannel.open(transport, {
      deviceId,
      deviceKeys: generateBoxKeyPair(random),
      hostBoxPublicKey: host.box.publicKey,
      clock,
      random,
    });
    FakeSocket.last!.onclose?.({ code: RelayCloseCode.TicketExpired, reason: 'ticket-expired' });
    expect(await opened).toMatchObject({ ok: false, error: { code: 'ticket-expired' } });
  });

  it("maps only the relay's own close codes by their reason; a host's codes keep their meaning", () => {
    expect(transportCloseToError(RelayCloseCode.TicketRefused, 'ticket-wrong-host')).toBe('ticket-wrong-host');
    expect(transportCloseToError(RelayCloseCode.TicketRefused, 'prose')).toBe('ticket-forged');
    expect(transportCloseToError(RelayCloseCode.HostOffline, 'host-offline')).toBe('host-offline');
    expect(transportCloseToError(4001, 'revoked')).toBe('handshake-failed');
    expect(transportCloseToError(1006, '')).toBe('disconnected');
  });
});
