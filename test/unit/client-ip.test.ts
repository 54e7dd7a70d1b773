import { expect } from 'chai';
import { clientIpKey } from '../../src/lib/client-ip.js';

describe('clientIpKey (the key of every per-IP limit)', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(clientIpKey('203.0.113.7')).to.equal('203.0.113.7');
  });

  it('keys an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:1:2::/64';
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:aaaa:bbbb:cccc:dddd',
      '2001:0db8:0001:0002:0000:0000:0000:ffff',
      '2001:DB8:1:2::ffff',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2::192.0.2.1',
    ]) {
      expect(clientIpKey(ip), ip).to.equal(key);
    }
    expect(clientIpKey('2001:db8:1:3::1')).to.equal('2001:db8:1:3::/64');
    expect(clientIpKey('::1')).to.equal('0:0:0:0::/64');
    expect(clientIpKey('fe80::1')).to.equal('fe80:0:0:0::/64');
  });

  it('turns an IPv4-mapped IPv6 address into its IPv4 address', () => {
    expect(clientIpKey('::ffff:127.0.0.1')).to.equal('127.0.0.1');
    expect(clientIpKey('::ffff:cb00:7107')).to.equal('203.0.113.7');
  });

  it('leaves what is not an address alone', () => {
    expect(clientIpKey('')).to.equal('');
    expect(clientIpKey('unknown')).to.equal('unknown');
  });
});
