// The platform's own origins (src/lib/own-origins.ts) as named by the settings: PUBLIC_URL's host
// and port, what the name resolves to on that port, HOST on the service's ports; other ports and
// other hosts pass. The listening servers of a process are covered over HTTP
// (test/api/functions-own-origin.test.ts).
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { expect } from 'chai';
import { OWN_ORIGIN_REASON, OwnOriginError, ownOrigins } from '../../src/lib/own-origins.js';

const settings = {
  host: '0.0.0.0',
  publicPort: 3000,
  dashboardPort: 3001,
  publicUrl: 'https://api.example.test',
  dashboardUrl: 'https://dash.example.test:8443',
  publicInternalUrl: 'http://10.0.0.7:3000',
};
const zone: Record<string, string[]> = {
  'api.example.test': ['203.0.113.10', '2001:db8::10'],
  'dash.example.test': ['203.0.113.11'],
  'other.example.test': ['203.0.113.10'],
};
const resolve = async (host: string): Promise<LookupAddress[]> =>
  (zone[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

/** A lookup answering from the zone above, as the guarded lookups do (`all` or the first). */
const zoneLookup = ((host: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
  void resolve(host).then((list) =>
    options.all ? cb(null, list) : cb(null, list[0]!.address, list[0]!.family),
  );
}) as unknown as LookupFunction;

const lookupThrough = (lookup: LookupFunction, host: string) =>
  new Promise<unknown>((done) =>
    lookup(host, { all: true }, (err, list) => done(err ?? (list as LookupAddress[]).map((a) => a.address))),
  );

describe('own origins', () => {
  const own = ownOrigins(settings, resolve);

  it('refuses the URLs of the settings, on their ports only', async () => {
    expect(await own.check(new URL('https://api.example.test/api/data/x'))).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('https://API.example.test./'))).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('http://api.example.test:8080/'))).to.equal(undefined);
    expect(await own.check(new URL('https://dash.example.test:8443/'))).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('https://dash.example.test/'))).to.equal(undefined);
    expect(await own.check(new URL('http://10.0.0.7:3000/'))).to.equal(OWN_ORIGIN_REASON);
  });

  it('refuses the addresses the names resolve to, written or behind another name', async () => {
    expect(await own.check(new URL('https://203.0.113.10/'))).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('https://[2001:db8::10]/'))).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('https://[::ffff:203.0.113.11]:8443/'))).to.equal(OWN_ORIGIN_REASON);
    // A name of the tenant's that points at the platform: refused when saved, and at connection.
    expect(await own.check(new URL('https://other.example.test/'), true)).to.equal(OWN_ORIGIN_REASON);
    expect(await own.check(new URL('https://other.example.test:444/'), true)).to.equal(undefined);
    const err = await lookupThrough(own.guard(zoneLookup, 443), 'other.example.test');
    expect(err).to.be.instanceOf(OwnOriginError);
    expect(await lookupThrough(own.guard(zoneLookup, 444), 'other.example.test')).to.deep.equal([
      '203.0.113.10',
    ]);
  });

  it('a service on every address is reached through loopback, 0.0.0.0 and the machine’s addresses', async () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '0.0.0.0', '::ffff:127.0.0.1'])
      expect(own.isOwnAddress(address, 3001), address).to.equal(true);
    expect(own.isOwnAddress('127.0.0.1', 3002)).to.equal(false);
    expect(own.isOwnAddress('198.51.100.1', 3000)).to.equal(false);
    const onLoopback = ownOrigins({ ...settings, host: '127.0.0.1' }, resolve);
    expect(onLoopback.isOwnAddress('127.0.0.2', 3000)).to.equal(true);
    expect(onLoopback.isOwnAddress('127.0.0.1', 4000)).to.equal(false);
  });
});
