import { describe, expect, it } from 'vitest';
import { ipKey } from '../../server/auth/sign-in-limiter';

describe('ipKey: the address sign-in attempts are counted under', () => {
  it('keeps an IPv4 address, also when written IPv4-mapped', () => {
    expect(ipKey('203.0.113.7')).toBe('203.0.113.7');
    expect(ipKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    expect(ipKey('2001:db8:1:2::1')).toBe(key);
    expect(ipKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(ipKey('2001:db8:1:2:a:b:c:d%eth0')).toBe(key);
    expect(ipKey('2001:db8:1:3::1')).not.toBe(key);
    expect(ipKey('::1')).toBe('0:0:0:0::/64');
  });
});
