import { CloseCode } from '@tether/shared-protocol';
import { describe, expect, it } from 'vitest';
import { gatewayHarness, gatewayPipe, settle } from '../../test/support/gateway-harness.js';
import { MAX_HANDSHAKING, MAX_HANDSHAKING_PER_ADDRESS } from './device-gateway.js';

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
});
