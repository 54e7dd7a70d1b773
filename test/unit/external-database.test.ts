// Pure parts of external database connections: legacy numeric IPv4 forms, the URI rules, and
// key ids that let ENCRYPTION_KEY be rotated.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { legacyIpv4 } from '../../src/lib/restricted-hosts.js';
import { parseDatabaseUri, splitHost } from '../../src/lib/mongodb-uri.js';
import { keyring } from '../../src/lib/secrets.js';

describe('external database: pure rules', () => {
  it('reads legacy numeric IPv4 forms as inet_aton does', () => {
    expect(legacyIpv4('2130706433')).to.equal('127.0.0.1');
    expect(legacyIpv4('0177.0.0.1')).to.equal('127.0.0.1');
    expect(legacyIpv4('0x7f.1')).to.equal('127.0.0.1');
    expect(legacyIpv4('127.1')).to.equal('127.0.0.1');
    expect(legacyIpv4('10.1')).to.equal('10.0.0.1');
    expect(legacyIpv4('127.0.0.1')).to.equal(undefined);
    expect(legacyIpv4('db.example.com')).to.equal(undefined);
    expect(legacyIpv4('4294967296')).to.equal(undefined);
    expect(legacyIpv4('256.1.1.1')).to.equal(undefined);
  });

  it('accepts standard URIs and refuses unsupported ones with a reason', () => {
    const ok = parseDatabaseUri('mongodb://u:p%40ss@db1.example.com:27018,[2001:db8::1]/shop?replicaSet=rs0');
    expect(ok.ok).to.equal(true);
    if (ok.ok) {
      expect(ok.value.hosts).to.deep.equal(['db1.example.com:27018', '[2001:db8::1]']);
      expect(ok.value.database).to.equal('shop');
      expect(ok.value.display).not.to.include('p%40ss');
    }
    expect(splitHost('[2001:db8::1]')).to.deep.equal({ host: '2001:db8::1', port: 27017 });
    for (const uri of [
      'postgres://db/x',
      'mongodb+srv://a.example.com:27017/x',
      'mongodb://h/x?proxyHost=p',
      'mongodb://h/x?tlsCertificateKeyFile=/k',
      'mongodb://h/x?authMechanism=GSSAPI',
      'mongodb://h:99999/x',
    ]) {
      expect(parseDatabaseUri(uri).ok, uri).to.equal(false);
    }
  });

  it('opens values sealed under a previous key after a rotation, by key id', () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const sealed = keyring([oldKey], 'test').seal('mongodb://h/x');
    const rotated = keyring([newKey, oldKey], 'test');
    expect(rotated.currentKeyId).not.to.equal(sealed.keyId);
    expect(rotated.open(sealed)).to.equal('mongodb://h/x');
    expect(() => keyring([newKey], 'test').open(sealed)).to.throw(/No configured encryption key/);
  });
});
