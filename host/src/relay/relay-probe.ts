import type { Clock, HostIdentity, RandomBytes } from '@tether/shared-protocol';
import {
  RelayCloseCode,
  encodeConnectRequest,
  generateDeviceId,
  relayConnectUrl,
  signRelayTicket,
} from '@tether/shared-protocol';
import { WebSocket } from 'ws';

/** What a relay shows of a link for this host: one is up (`live`), none is (`none`), or it did not
 * say in time (`unknown`). */
export type LinkProbe = 'live' | 'none' | 'unknown';

/** Milliseconds a probe waits for its answer: a device's connection is refused or passed to the
 * host within a round trip or two, across relay nodes too. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Whether another link for this host is up on the relay at `url`, without taking it over: the
 * host connects there as a device would, with a ticket it signs for a device id nobody has, and
 * says one byte no handshake accepts. With no link for this host the relay closes it 4102
 * `host-offline`; with one, it passes the byte to that link, whose gateway refuses the handshake
 * and closes it with a code of its own. So a relay's "a newer link for this host took over" (4104)
 * is checked before it keeps the host off that relay for long: the other process is never
 * disturbed, and a relay that said so falsely is dialled again at once.
 */
export function probeHostLink(
  url: string,
  identity: HostIdentity,
  random: RandomBytes,
  clock: Clock,
): Promise<LinkProbe> {
  const target = relayConnectUrl(url, identity.hostId);
  const ticket = signRelayTicket(
    { deviceId: generateDeviceId(random), expiresAt: clock.now() + 60_000 },
    identity.sign,
  );
  const first = encodeConnectRequest(identity.sign.publicKey, ticket);
  if (!target || !first.ok) return Promise.resolve('unknown');
  return new Promise((resolve) => {
    const ws = new WebSocket(target, { perMessageDeflate: false, handshakeTimeout: PROBE_TIMEOUT_MS });
    let settled = false;
    const settle = (answer: LinkProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      ws.terminate();
      resolve(answer);
    };
    const timer = setTimeout(() => settle('unknown'), PROBE_TIMEOUT_MS);
    ws.on('open', () => {
      ws.send(first.value);
      ws.send(Uint8Array.of(0));
    });
    ws.on('close', (code) => {
      if (code === RelayCloseCode.HostOffline) return settle('none');
      // A host's gateway closes a connection it refuses with a code of its own (4000–4009).
      settle(code >= 4000 && code <= 4009 ? 'live' : 'unknown');
    });
    ws.on('error', () => settle('unknown'));
  });
}
