// The restricted-host check (src/lib/restricted-hosts.ts): addresses, names, DNS resolution, and
// the connection-time lookup used by the HTTP agents of developer-supplied endpoints.
import { expect } from 'chai';
import {
  checkHost,
  createGuardedLookup,
  guardedLookup,
  isLoopbackHost,
  isRestrictedAddress,
  isRestrictedName,
  NOT_ALLOWED_REASON,
} from '../../src/lib/restricted-hosts.js';

describe('restricted hosts', () => {
  it('refuses loopback, private, link-local, unspecified, CGNAT, multicast and reserved IPv4', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '198.18.0.1',
    ]) {
      expect(isRestrictedAddress(ip), ip).to.equal(true);
    }
  });

  it('refuses loopback, unspecified, unique-local, link-local and multicast IPv6', () => {
    for (const ip of [
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '[::1]',
    ]) {
      expect(isRestrictedAddress(ip), ip).to.equal(true);
    }
  });

  it('looks through IPv4-mapped, NAT64 and 6to4 forms', () => {
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:c0a8:0101::1',
      '::ffff:0:a00:1',
    ]) {
      expect(isRestrictedAddress(ip), ip).to.equal(true);
    }
    expect(isRestrictedAddress('::ffff:8.8.8.8')).to.equal(false);
    expect(isRestrictedAddress('2002:0808:0808::1')).to.equal(false);
  });

  it('allows public addresses, and refuses what is not an address', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '192.169.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
    ]) {
      expect(isRestrictedAddress(ip), ip).to.equal(false);
    }
    expect(isRestrictedAddress('not-an-ip')).to.equal(true);
  });

  it('refuses localhost and metadata names without resolving them', () => {
    for (const name of [
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      'metadata.google.internal',
      'metadata',
      'host.docker.internal',
    ]) {
      expect(isRestrictedName(name), name).to.equal(true);
    }
    expect(isRestrictedName('s3.amazonaws.com')).to.equal(false);
  });

  // A resolver standing in for DNS: deterministic records, no network.
  const records: Record<string, string[]> = {
    'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    'rebind.example': ['93.184.216.34', '10.0.0.5'],
    'mapped.example': ['::ffff:169.254.169.254'],
    'laptop.example': ['127.0.0.1', '::1'],
  };
  const fakeResolve = async (host: string) => {
    const list = records[host];
    if (!list) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address }));
  };
  const fakeDns = ((host: string, _options: unknown, callback: (...args: unknown[]) => void) => {
    fakeResolve(host).then(
      (list) =>
        callback(
          null,
          list.map((r) => ({ address: r.address, family: r.address.includes(':') ? 6 : 4 })),
        ),
      (err) => callback(err),
    );
  }) as unknown as Parameters<typeof createGuardedLookup>[0];

  it('checks literals and resolved names (every record counts), naming neither in the reason', async () => {
    expect(await checkHost('127.0.0.1', false)).to.deep.include({ ok: false });
    expect(await checkHost('[::1]', false)).to.deep.include({ ok: false });
    expect(await checkHost('8.8.8.8', false)).to.deep.equal({ ok: true });
    expect(await checkHost('localhost', false)).to.deep.include({ ok: false });
    expect(await checkHost('public.example', false, fakeResolve)).to.deep.equal({ ok: true });
    const rebind = await checkHost('rebind.example', false, fakeResolve);
    expect(rebind).to.deep.include({ ok: false });
    expect((rebind as { reason: string }).reason).to.equal(NOT_ALLOWED_REASON);
    expect(await checkHost('mapped.example', false, fakeResolve)).to.deep.include({ ok: false });
    expect(await checkHost('nothing.example', false, fakeResolve)).to.deep.include({ ok: false });
    expect(await checkHost('does-not-exist.invalid', false)).to.deep.include({ ok: false });
  });

  it('ALLOW_PRIVATE_HOSTS lets private and loopback through, never link-local or cloud metadata', async () => {
    for (const ip of ['127.0.0.1', '10.0.0.5', '192.168.1.1', 'fd12:3456::1', '::1', '100.64.0.1']) {
      expect(isRestrictedAddress(ip, true), ip).to.equal(false);
      expect(await checkHost(ip.includes(':') ? `[${ip}]` : ip, true), ip).to.deep.equal({ ok: true });
    }
    for (const ip of [
      '169.254.169.254',
      '169.254.0.1',
      '::ffff:169.254.169.254',
      'fd00:ec2::254',
      'fe80::1',
      '100.100.100.200',
      '192.0.0.192',
    ]) {
      expect(isRestrictedAddress(ip, true), ip).to.equal(true);
      expect(await checkHost(ip, true), ip).to.deep.equal({ ok: false, reason: NOT_ALLOWED_REASON });
    }
    for (const name of [
      'metadata.google.internal',
      'METADATA.google.internal.',
      'metadata',
      'instance-data',
    ]) {
      expect(isRestrictedName(name, true), name).to.equal(true);
      expect(await checkHost(name, true), name).to.deep.equal({ ok: false, reason: NOT_ALLOWED_REASON });
    }
    expect(isRestrictedName('db.internal', true)).to.equal(false);
    expect(isRestrictedName('localhost', true)).to.equal(false);
    // A name is resolved and refused when any address is a metadata one; one that does not resolve passes.
    expect(await checkHost('mapped.example', true, fakeResolve)).to.deep.include({ ok: false });
    expect(await checkHost('rebind.example', true, fakeResolve)).to.deep.equal({ ok: true });
    expect(await checkHost('nothing.example', true, fakeResolve)).to.deep.equal({ ok: true });
    const lookup = createGuardedLookup(fakeDns, true);
    const err = await new Promise<Error | null>((done) => lookup('mapped.example', { family: 0 }, done));
    expect(err).to.include({ code: 'ERESTRICTEDHOST', message: NOT_ALLOWED_REASON });
  });

  it("the development profile's 'loopback' allowance lets localhost and loopback through, nothing else", async () => {
    for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) {
      expect(isRestrictedAddress(ip, 'loopback'), ip).to.equal(false);
      expect(isLoopbackHost(ip.includes(':') ? `[${ip}]` : ip), ip).to.equal(true);
      expect(await checkHost(ip.includes(':') ? `[${ip}]` : ip, 'loopback'), ip).to.deep.equal({ ok: true });
    }
    for (const ip of [
      '10.0.0.5',
      '192.168.1.1',
      '172.16.0.1',
      '100.64.0.1',
      'fd12:3456::1',
      '0.0.0.0',
      '::',
      '169.254.169.254',
      '::ffff:169.254.169.254',
      'fd00:ec2::254',
      'fe80::1',
      '100.100.100.200',
      '192.0.0.192',
    ]) {
      expect(isRestrictedAddress(ip, 'loopback'), ip).to.equal(true);
      expect(isLoopbackHost(ip), ip).to.equal(false);
      expect(await checkHost(ip, 'loopback'), ip).to.deep.equal({ ok: false, reason: NOT_ALLOWED_REASON });
    }
    for (const name of ['localhost', 'LOCALHOST.', 'api.localhost']) {
      expect(isRestrictedName(name, 'loopback'), name).to.equal(false);
      expect(isLoopbackHost(name), name).to.equal(true);
    }
    for (const name of ['metadata.google.internal', 'metadata', 'instance-data', 'db.internal'])
      expect(await checkHost(name, 'loopback'), name).to.deep.equal({
        ok: false,
        reason: NOT_ALLOWED_REASON,
      });
    expect(isLoopbackHost('localhost.example.com')).to.equal(false);
    // Names: every address must be public or loopback; one that does not resolve passes (no DNS on
    // a laptop) and is resolved again, and checked, when a connection is made.
    expect(await checkHost('laptop.example', 'loopback', fakeResolve)).to.deep.equal({ ok: true });
    expect(await checkHost('rebind.example', 'loopback', fakeResolve)).to.deep.include({ ok: false });
    expect(await checkHost('nothing.example', 'loopback', fakeResolve)).to.deep.equal({ ok: true });
    const lookup = createGuardedLookup(fakeDns, 'loopback');
    const resolve = (host: string) =>
      new Promise<unknown>((ok, fail) =>
        lookup(host, { family: 0 }, (err, address) => (err ? fail(err) : ok(address))),
      );
    expect(await resolve('laptop.example')).to.equal('127.0.0.1');
    for (const host of ['rebind.example', 'mapped.example'])
      await resolve(host).then(
        () => expect.fail(host),
        (err: Error) => expect(err, host).to.include({ code: 'ERESTRICTEDHOST' }),
      );
  });

  it('refuses restricted addresses at connection time (DNS rebinding)', async () => {
    const lookup = createGuardedLookup(fakeDns);
    const resolve = (host: string, all = false) =>
      new Promise<unknown>((ok, fail) =>
        lookup(host, { family: 0, all }, (err, address) => (err ? fail(err) : ok(address))),
      );
    expect(await resolve('public.example')).to.equal('93.184.216.34');
    expect(await resolve('public.example', true)).to.have.length(2);
    for (const host of ['rebind.example', 'mapped.example', 'localhost']) {
      await resolve(host).then(
        () => expect.fail(`${host} resolved`),
        (err: Error & { code?: string }) => expect(err.code, host).to.equal('ERESTRICTEDHOST'),
      );
    }
    expect(guardedLookup).to.be.a('function');
  });

  it('refuses a name that does not resolve with the reason of a restricted one, at check and connection time', async () => {
    expect(await checkHost('nothing.example', false, fakeResolve)).to.deep.equal(
      await checkHost('rebind.example', false, fakeResolve),
    );
    const lookup = createGuardedLookup(fakeDns);
    const errorOf = (host: string) =>
      new Promise<Error | null>((done) => lookup(host, { family: 0 }, (err) => done(err)));
    const [missing, restricted] = [await errorOf('nothing.example'), await errorOf('rebind.example')];
    expect(missing).to.include({ code: 'ERESTRICTEDHOST', message: NOT_ALLOWED_REASON });
    expect({ code: (missing as any).code, message: missing?.message }).to.deep.equal({
      code: (restricted as any).code,
      message: restricted?.message,
    });
  });
});
