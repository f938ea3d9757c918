import { describe, expect, it } from 'vitest';
import { HandshakePool } from './handshake-pool.js';

describe('the handshake pool', () => {
  it('refuses an address range past its share, an IPv6 /64 counting as one', () => {
    const pool = new HandshakePool<string>(10, 2);
    pool.add('a', '2001:db8::1');
    pool.add('b', '2001:db8:0:0:ffff::2');
    expect(pool.refuses('2001:db8::3')).toBe(true);
    expect(pool.refuses('2001:db8:0:1::1')).toBe(false);
    expect(pool.refuses('::ffff:192.0.2.1')).toBe(false);
    pool.delete('a');
    expect(pool.refuses('2001:db8::3')).toBe(false);
  });

  it('when full, gives up the oldest connection of the busiest range, never the newcomer', () => {
    const pool = new HandshakePool<string>(5, 3);
    pool.add('x1', '192.0.2.1');
    pool.add('y1', '192.0.2.2');
    pool.add('y2', '192.0.2.2');
    pool.add('x2', '192.0.2.1');
    pool.add('y3', '192.0.2.2');
    expect(pool.add('z1', '192.0.2.3')).toBe('y1');
    // Now 2 and 2: of the busiest ranges, the oldest connection goes.
    expect(pool.add('z2', '192.0.2.3')).toBe('x1');
    expect(pool.size).toBe(5);
    expect(pool.connections()).toEqual(['y2', 'x2', 'y3', 'z1', 'z2']);
  });
});
