// Pure parts of external database connections: legacy numeric IPv4 forms, the URI rules, and
// key ids that let ENCRYPTION_KEY be rotated.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { legacyIpv4 } from '../../src/lib/restricted-hosts.js';
import { parseDatabaseUri, splitHost } from '../../src/lib/mongodb-uri.js';
import { keyring } from '../../src/lib/secrets.js';
import { memberRule } from '../../src/services/external-db/resolver.js';
import { hostResolver } from '../../src/lib/restricted-hosts.js';

describe('external database: pure rules', () => {
  it('checks reported replica-set members as hosts: literals at once, names when resolved', async () => {
    const hosts = { ...hostResolver(), resolveAll: async () => [{ address: '10.0.0.5' }] };
    const strict = memberRule({ hosts, allowPrivate: false });
    for (const member of ['10.0.0.5:27017', '[::1]:27017', '[::ffff:127.0.0.1]:1', '2130706433:27017']) {
      expect(strict.checkNow(member), member).to.equal(false);
      expect(await strict.check(member), member).to.equal(false);
    }
    expect(strict.checkNow('93.184.216.34:27017')).to.equal(true);
    // A name passes the immediate check (its connections go through the guarded lookup) ...
    expect(strict.checkNow('db2.example.com:27017')).to.equal(true);
    // ... and fails the full one when it resolves to a restricted address.
    expect(await strict.check('db2.example.com:27017')).to.equal(false);
    const open = memberRule({ hosts, allowPrivate: true });
    expect(open.checkNow('10.0.0.5:27017')).to.equal(true);
    expect(open.checkNow('169.254.169.254:27017')).to.equal(false);
    expect(open.checkNow('[fd00:ec2::254]:27017')).to.equal(false);
    expect(open.checkNow('metadata.google.internal:80')).to.equal(false);
  });

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
