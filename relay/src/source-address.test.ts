import { describe, expect, it } from 'vitest';
import { sourceAddress } from './source-address.js';

const proxy = new Set(['10.0.0.2']);

describe('the source address', () => {
  it('is the peer, unless the peer is a trusted proxy: then the last address it appended', () => {
    expect(sourceAddress('198.51.100.1', '203.0.113.9', proxy)).toBe('198.51.100.1');
    expect(sourceAddress('10.0.0.2', '1.2.3.4, 203.0.113.9', proxy)).toBe('203.0.113.9');
    expect(sourceAddress('::ffff:10.0.0.2', '2001:db8::7', proxy)).toBe('2001:db8::7');
    expect(sourceAddress('10.0.0.2', undefined, proxy)).toBe('10.0.0.2');
    expect(sourceAddress(undefined, '203.0.113.9', proxy)).toBe('unknown');
  });

  it('reads an address a proxy wrote with its port, so its clients are not all counted as the proxy', () => {
    expect(sourceAddress('10.0.0.2', '203.0.113.9:51234', proxy)).toBe('203.0.113.9');
    expect(sourceAddress('10.0.0.2', '[2001:db8::7]:443', proxy)).toBe('2001:db8::7');
    expect(sourceAddress('10.0.0.2', '[2001:db8::8]', proxy)).toBe('2001:db8::8');
    // Anything else that is not an address is not believed: the proxy's own address counts.
    expect(sourceAddress('10.0.0.2', 'unknown', proxy)).toBe('10.0.0.2');
    expect(sourceAddress('10.0.0.2', '2001:db8::7:443', proxy)).toBe('2001:db8::7:443');
    expect(sourceAddress('10.0.0.2', '203.0.113.9:99999', proxy)).toBe('10.0.0.2');
  });
});
