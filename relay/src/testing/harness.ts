import type { HostIdentity } from '@tether/shared-protocol';
import {
  answerRelayChallenge,
  encodeConnectRequest,
  generateDeviceId,
  generateHostIdentity,
  signRelayTicket,
} from '@tether/shared-protocol';
import { ManualClock, seededRandom } from '@tether/shared-protocol/testing';
import type { RelayLimits } from '../limits.js';
import { DEFAULT_LIMITS } from '../limits.js';
import { RelayMetrics } from '../metrics.js';
import { Switchboard } from '../switchboard.js';
import { FakePort } from './fake-port.js';

export const ORIGIN = 'https://relay.test';

/** A switchboard on a manual clock, with fake sockets for hosts and devices. */
export function harness(limits: Partial<RelayLimits> = {}, clock = new ManualClock()) {
  const random = seededRandom('relay harness');
  const metrics = new RelayMetrics();
  const board = new Switchboard({ clock, random, limits: { ...DEFAULT_LIMITS, ...limits }, metrics, origin: ORIGIN });

  /** Connects a host and answers its challenge. */
  const host = (identity: HostIdentity = generateHostIdentity(random)) => {
    const port = new FakePort('198.51.100.1');
    const link = board.acceptHost(port);
    const answer = answerRelayChallenge(port.sent[0]!, identity.sign, { relayUrl: ORIGIN, clock });
    if (!answer.ok) throw new Error(answer.error.message);
    port.deliver(answer.value);
    return { port, link, identity };
  };

  /** A valid connect request for a device of `identity`. */
  const connectRequest = (
    identity: HostIdentity,
    expiresAt = clock.now() + 60_000,
    deviceId = generateDeviceId(random),
  ) => {
    const ticket = signRelayTicket({ deviceId, expiresAt }, identity.sign);
    const r = encodeConnectRequest(identity.sign.publicKey, ticket);
    if (!r.ok) throw new Error(r.error.message);
    return { bytes: r.value, deviceId };
  };

  /** Connects a device to `identity`'s host and presents a valid ticket. */
  const device = async (identity: HostIdentity, source = '203.0.113.9') => {
    const port = new FakePort(source);
    const conn = board.acceptDevice(port, identity.hostId);
    const request = connectRequest(identity);
    port.deliver(request.bytes);
    await settle();
    return { port, conn, deviceId: request.deviceId };
  };

  return { clock, random, metrics, board, host, device, connectRequest, limits: { ...DEFAULT_LIMITS, ...limits } };
}

/** Lets every pending promise callback run (timers stay on the manual clock). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}
