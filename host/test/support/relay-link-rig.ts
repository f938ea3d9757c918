import type { DeviceInfo } from '@tether/shared-protocol';
import { DeviceChannel, generateBoxKeyPair, generateDeviceId } from '@tether/shared-protocol';
import { expect } from 'vitest';
import { RelayLink } from '../../src/relay/relay-link.js';
import type { RelayLinkState } from '../../src/relay/relay-link.js';
import type { LinkProbe } from '../../src/relay/relay-probe.js';
import { FakeRelay } from './fake-relay.js';
import { gatewayHarness, settle } from './gateway-harness.js';

/**
 * A host's relay link over fake relays, for the relay link's tests: one relay (`setup`, `linked`),
 * the manual clock moved on with sockets answering between steps (`run`), a connection's
 * gateway-side transport (`findTransport`).
 */

export function setup(verify?: (url: string) => Promise<LinkProbe>) {
  const h = gatewayHarness();
  const relay = new FakeRelay(h.clock, h.random);
  const states: RelayLinkState[] = [];
  const link = new RelayLink({
    urls: ['https://relay.test'],
    identity: h.identity,
    gateway: h.gateway,
    clock: h.clock,
    random: h.random,
    dial: relay.dial,
    onState: (s) => states.push(s),
    ...(verify ? { verify } : {}),
  });
  /** A device in the store, and a connection for it opened through the link. */
  const device = async (connId: number, opts: { revoked?: boolean; source?: string } = {}) => {
    const keys = generateBoxKeyPair(h.random);
    const info: DeviceInfo = h.devices.insert({
      id: generateDeviceId(h.random),
      publicKey: keys.publicKey,
      label: 'phone',
      scopes: ['watch', 'approve', 'chat'],
      createdAt: h.clock.now(),
    });
    if (opts.revoked) h.devices.revoke(info.id, h.clock.now());
    const transport = relay.current.openDevice(connId, info.id, opts.source);
    const opened = await DeviceChannel.open(transport, {
      deviceId: info.id,
      deviceKeys: keys,
      hostBoxPublicKey: h.identity.box.publicKey,
      clock: h.clock,
      random: h.random,
    });
    return { info, transport, opened };
  };
  return { h, relay, link, states, device };
}

export async function linked() {
  const s = setup();
  s.link.start();
  await settle();
  expect(s.link.state.name).toBe('linked');
  return s;
}

export const names = (states: RelayLinkState[]) => states.map((s) => s.name);

/** Moves the manual clock on by `ms` in small steps, letting sockets answer between them. */
export async function run(h: { clock: { advance(ms: number): void } }, ms: number): Promise<void> {
  for (let t = 0; t < ms; t += 100) {
    h.clock.advance(Math.min(100, ms - t));
    await settle();
  }
}

/** The gateway-side transport of a device's connection through the link. */
export function findTransport(link: RelayLink, connId: number) {
  const session = (link as unknown as { session?: { conns: Map<number, unknown> } }).session;
  const conn = session?.conns.get(connId);
  if (!conn) throw new Error('no such connection');
  return conn as unknown as { send(data: Uint8Array): void; bufferedAmount(): number };
}
