import { describe, expect, it } from 'vitest';
import { addressRange } from './address-range.js';

describe('addressRange', () => {
  it('names IPv4 alone, IPv6 by its /64, mapped IPv4 as IPv4, and drops a zone', () => {
    expect(addressRange('192.168.1.20')).toBe('192.168.1.20');
    expect(addressRange('::ffff:192.168.1.20')).toBe('192.168.1.20');
    expect(addressRange('::FFFF:10.0.0.1')).toBe('10.0.0.1');
    expect(addressRange('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressRange('2001:DB8:0001:0002::ff')).toBe('2001:db8:1:2::/64');
    expect(addressRange('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressRange('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressRange('::1')).toBe('0:0:0:0::/64');
    expect(addressRange('::')).toBe('0:0:0:0::/64');
    expect(addressRange('1:2:3:4:5:6::')).toBe('1:2:3:4::/64');
  });

  it('puts every address of one /64 in one range, and neighbouring /64s apart', () => {
    const ranges = new Set(
      ['2001:db8:a:b::1', '2001:db8:a:b:ffff:ffff:ffff:ffff', '2001:0db8:000a:000b:1:2:3:4'].map(addressRange),
    );
    expect([...ranges]).toEqual(['2001:db8:a:b::/64']);
    expect(addressRange('2001:db8:a:c::1')).not.toBe(addressRange('2001:db8:a:b::1'));
  });

  it('names a NAT64 address by the IPv4 address it embeds, so clients behind a translator are apart', () => {
    // The well-known prefix (RFC 6052): the last 32 bits are the client's IPv4 address, the very
    // range it would count under if it came in over IPv4.
    expect(addressRange('64:ff9b::192.0.2.1')).toBe('192.0.2.1');
    expect(addressRange('64:ff9b::c000:201')).toBe('192.0.2.1');
    expect(addressRange('64:FF9B:0:0:0:0:C633:6407')).toBe('198.51.100.7');
    expect(addressRange('64:ff9b::198.51.100.8')).not.toBe(addressRange('64:ff9b::198.51.100.7'));
    // The local-use prefix (RFC 8215) may carry the IPv4 address at any of RFC 6052's places after
    // its /48: every bit past the /48 counts, so each embedded address is a range of its own.
    const local = ['64:ff9b:1::c000:201', '64:ff9b:1::c000:202', '64:ff9b:1:c000:2:100::', '64:ff9b:1:c000:2:200::'];
    expect(new Set(local.map(addressRange)).size).toBe(4);
    expect(addressRange('64:ff9b:1::C000:201')).toBe(addressRange('64:ff9b:1:0:0:0:c000:201'));
    // Neither prefix reaches past itself: its neighbours are ordinary /64s.
    expect(addressRange('64:ff9b:0:1::c000:201')).toBe('64:ff9b:0:1::/64');
    expect(addressRange('64:ff9b:2::c000:201')).toBe('64:ff9b:2:0::/64');
  });

  it('leaves what is not an IP address as it is (node:net agrees on each of these)', () => {
    for (const text of ['unknown', '', '1:2:3', '1::2::3', 'g::1', '1:2:3:4:5:6:7:8:9', '12345::', '300.1.1.1']) {
      expect(addressRange(text), text).toBe(text);
    }
    for (const text of ['1:2:3:4:5:6:7:8', '1::', '::ffff:1.2.3.4', '1:2:3:4:5:6:1.2.3.4', '::1.2.3.4']) {
      expect(addressRange(text), text).not.toBe(text);
    }
  });
});
