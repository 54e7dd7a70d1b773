// ctx.fetch of hosted code under the webhook rules, against real local servers: restricted
// addresses refused whether written as literals or reached through DNS, redirects answered and
// never followed, and the size, time, method and header limits driven past their edge.
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type dns from 'node:dns';
import { createGuardedLookup, hostResolver, NOT_ALLOWED_REASON } from '../../src/lib/restricted-hosts.js';
import {
  hostedFetch,
  MAX_FETCH_RESPONSE_BYTES,
  type FetchRules,
} from '../../src/services/functions/host-fetch.js';

/** A resolver that answers 10.0.0.5 for every name, like a record pointing inside. */
const insideLookup = ((
  _host: string,
  _options: unknown,
  cb: (e: null, a: { address: string; family: number }[]) => void,
) => cb(null, [{ address: '10.0.0.5', family: 4 }])) as unknown as typeof dns.lookup;

const strict: FetchRules = {
  allowHttp: true,
  allowPrivate: false,
  timeoutMs: 500,
  resolver: {
    guardedLookup: createGuardedLookup(insideLookup),
    lookup: createGuardedLookup(insideLookup, true),
  },
};
/** ALLOW_PRIVATE_HOSTS, as the tests' own servers need: loopback reachable, link-local never. */
const loopback: FetchRules = { ...strict, allowPrivate: true, resolver: hostResolver() };

async function message(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('sandbox host: ctx.fetch', () => {
  let server: http.Server;
  let base: string;
  let hits = 0;

  before(async () => {
    server = http.createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/big') {
        res.end(Buffer.alloc(MAX_FETCH_RESPONSE_BYTES + 1, 'a'));
      } else if (req.url === '/hang') {
        // never answers
      } else {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () =>
          res.end(JSON.stringify({ method: req.method, body, header: req.headers['x-test'] ?? null })),
        );
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('refuses loopback, [::1], link-local metadata and names that resolve inside', async () => {
    const before = hits;
    const port = (server.address() as AddressInfo).port;
    const restricted = `ctx.fetch: ${NOT_ALLOWED_REASON}`;
    for (const url of [
      `${base}/`,
      `http://[::1]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost/',
      'http://internal.example.com/',
    ]) {
      expect(await message(hostedFetch({ url }, strict)), url).to.equal(restricted);
    }
    // Link-local stays refused even when the operator allows private hosts.
    expect(await message(hostedFetch({ url: 'http://169.254.169.254/' }, loopback))).to.equal(restricted);
    expect(hits).to.equal(before);
  });

  it('answers a redirect as it is and never follows it', async () => {
    const before = hits;
    const answer = await hostedFetch({ url: `${base}/redirect` }, loopback);
    expect(answer.status).to.equal(302);
    expect(answer.headers.location).to.equal('http://169.254.169.254/latest/meta-data/');
    expect(hits).to.equal(before + 1);
  });

  it('sends the method, headers and body, and returns status, headers and body', async () => {
    const answer = await hostedFetch(
      { url: `${base}/echo`, method: 'post', headers: { 'x-test': 'yes' }, body: 'hello' },
      loopback,
    );
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body)).to.deep.equal({ method: 'POST', body: 'hello', header: 'yes' });
  });

  it('refuses a response past the size cap and a server that does not answer in time', async () => {
    expect(await message(hostedFetch({ url: `${base}/big` }, loopback))).to.equal(
      `ctx.fetch: the response is larger than ${MAX_FETCH_RESPONSE_BYTES} bytes`,
    );
    const started = Date.now();
    expect(await message(hostedFetch({ url: `${base}/hang` }, loopback))).to.equal(
      'ctx.fetch: no answer within 500 ms',
    );
    expect(Date.now() - started).to.be.below(1000);
  });

  it('refuses plain http without the operator setting, other methods, bad headers and bodies', async () => {
    expect(
      await message(hostedFetch({ url: 'http://example.com/' }, { ...strict, allowHttp: false })),
    ).to.equal('ctx.fetch: Use an https:// address.');
    expect(await message(hostedFetch({ url: 'file:///etc/passwd' }, strict))).to.equal(
      'ctx.fetch: Addresses starting with file:// are not supported: use an https:// address.',
    );
    expect(await message(hostedFetch({ url: `${base}/`, method: 'TRACE' }, loopback))).to.match(
      /the method must be one of/,
    );
    expect(
      await message(hostedFetch({ url: `${base}/`, headers: { 'x-a': 'b\r\nx-injected: 1' } }, loopback)),
    ).to.equal('ctx.fetch: the header x-a is not valid');
    expect(await message(hostedFetch({ url: `${base}/`, body: { a: 1 } }, loopback))).to.equal(
      'ctx.fetch: the body must be a string',
    );
  });
});
