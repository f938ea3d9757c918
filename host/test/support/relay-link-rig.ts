import type { DeviceInfo } from '@tether/shared-protocol';
import { DeviceChannel, generateBoxKeyPair, generateDeviceId } from '@tether/shared-protocol';
import { expect } from 'vitest';
import type { GatewayTransport } from '../../src/gateway/gateway-transport.js';
import { RelayConn } from '../../src/relay/relay-conn.js';
import { RelayLink } from '../../src/relay/relay-link.js';
import type { LinkGateway } from '../../src/relay/link-types.js';
import type { RelayLinkState } from '../../src/relay/relay-link.js';
import type { LinkProbe } from '../../src/relay/relay-probe.js';
import { FakeRelay } from './fake-relay.js';
import { gatewayHarness, settle } from './gateway-harness.js';

/**
 * A host's relay link over fake relays, for the relay link's tests: one relay (`setup`, `linked`),
 * the manual clock moved on with sockets answering between steps (`run`), a connection's
 * gateway-side transport (`accepted`).
 */

export function setup(verify?: (url: string) => Promise<LinkProbe>) {
  const h = gatewayHarness();
  const relay = new FakeRelay(h.clock, h.random);
  const states: RelayLinkState[] = [];
  /** Each device connection the link handed the gateway, by its id on the link. */
  const accepted = new Map<number, GatewayTransport>();
  const gateway: LinkGateway = {
    pair: (...args) => h.gateway.pair(...args),
    call: (...args) => h.gateway.call(...args),
    stats: h.gateway.stats,
    accept: (transport) => {
      if (transport instanceof RelayConn) accepted.set(transport.connId, transport);
      return h.gateway.accept(transport);
    },
  };
  const link = new RelayLink({
    urls: ['https://relay.test'],
    identity: h.identity,
    gateway,
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
  return { h, relay, link, states, device, accepted };
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
