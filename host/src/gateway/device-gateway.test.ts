import { CloseCode } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, gatewayPipe, settle } from '../../test/support/gateway-harness.js';
import { MAX_CONNECTIONS_PER_ADDRESS, MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDRESS } from './device-gateway.js';

describe('the device gateway', () => {
  it('keeps a separate handshake pool: silent sockets from one address never keep a phone out', async () => {
    const h = gatewayHarness();
    const closed: number[] = [];
    // Sockets that never say hello, from as many addresses as the pool allows.
    for (let i = 0; i < MAX_HANDSHAKING; i++) {
      const pipe = gatewayPipe(`198.51.100.${Math.floor(i / MAX_HANDSHAKING_PER_ADDRESS)}`);
      pipe.device.onClose = ({ code }) => closed.push(code);
      expect(h.gateway.accept(pipe.host).ok).toBe(true);
    }
    // One more from a crowded address is refused outright.
    const extra = gatewayPipe('198.51.100.0');
    expect(h.gateway.accept(extra.host)).toMatchObject({ ok: false, error: { code: 'busy' } });
    // A phone from elsewhere evicts the oldest silent socket of the busiest address, and gets in.
    const phone = await h.connect();
    await settle();
    expect(phone.connection.isClosed).toBe(false);
    expect(closed).toEqual([CloseCode.Busy]);
    expect(h.gateway.stats.get('connection:handshake-pool-full')).toBe(1);
    expect(h.gateway.stats.get('connection:too-many-handshaking')).toBe(1);
  });

  it('counts established connections per address range: a /64 sprayed across has one share', async () => {
    const h = gatewayHarness();
    const from = (i: number) => `2001:db8:1:2::${(i + 1).toString(16)}`;
    const phones = [];
    for (let i = 0; i < MAX_CONNECTIONS_PER_ADDRESS; i++) phones.push(await h.connect(['watch'], from(i)));
    const extra = await h.connect(['watch'], from(MAX_CONNECTIONS_PER_ADDRESS));
    await settle();
    expect(extra.closed()).toBe('busy');
    expect(phones.every((p) => !p.connection.isClosed)).toBe(true);
    expect(h.gateway.stats.get('connection:too-many-established')).toBe(1);
    // Another /64, and clients behind NAT64 (each its own IPv4 address), are let in.
    for (const other of ['2001:db8:1:3::1', '64:ff9b::198.51.100.1', '64:ff9b::198.51.100.2']) {
      const phone = await h.connect(['watch'], other);
      await settle();
      expect(phone.connection.isClosed).toBe(false);
    }
  });
});
