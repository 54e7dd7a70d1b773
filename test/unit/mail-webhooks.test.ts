// Pure pieces of mail and webhooks: template rendering, the Standard Webhooks signature (checked
// with the independent `standardwebhooks` package), the retry schedule setting and target URLs.
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { renderString, renderTemplate } from '../../src/mail/render.js';
import { generateSecret, signedHeaders } from '../../src/services/webhooks/signing.js';
import { urlProblem, isRetryableStatus } from '../../src/services/webhooks/http.js';
import { loadConfig } from '../../src/config.js';

const baseEnv = {
  MONGODB_URI: 'mongodb://127.0.0.1:27017',
  ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  INTERNAL_API_SECRET: 'x'.repeat(32),
};

describe('mail template rendering', () => {
  const vars = { name: '<Ada & "Co">', user: { plan: { tier: 'pro' } }, n: 3, flag: false, nil: null };
  it('escapes {{var}} in html only, leaves {{{var}}} raw, reads dot paths, renders missing as empty', () => {
    expect(renderString('Hi {{name}}', vars, true)).to.equal('Hi &lt;Ada &amp; &quot;Co&quot;&gt;');
    expect(renderString('Hi {{name}}', vars, false)).to.equal('Hi <Ada & "Co">');
    expect(renderString('Hi {{{name}}}', vars, true)).to.equal('Hi <Ada & "Co">');
    expect(
      renderString('{{ user.plan.tier }}/{{n}}/{{flag}}/{{nil}}/{{missing.deep}}', vars, false),
    ).to.equal('pro/3/false//');
    expect(renderString('{{user.plan}}', vars, false)).to.equal('{"tier":"pro"}');
  });
  it('never reads inherited properties', () => {
    expect(renderString('[{{constructor}}][{{name.length}}][{{__proto__}}]', vars, false)).to.equal('[][][]');
  });
  it('keeps the subject on one line', () => {
    expect(renderTemplate({ subject: 'Hi {{name}}' }, { name: 'a\r\nBcc: x@y' }).subject).to.equal(
      'Hi a Bcc: x@y',
    );
  });
});

describe('webhook signing and targets', () => {
  it('signs as Standard Webhooks does: the standardwebhooks package verifies it', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ event: 'document.created', document: { title: 'ü' } });
    const headers = signedHeaders(secret, 'msg_1', body, new Date());
    expect(headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => new Webhook(secret).verify(body, headers)).not.to.throw();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).to.throw();
    expect(() => new Webhook(secret).verify(body + ' ', headers)).to.throw();
  });
  it('retries only 408, 429 and 5xx', () => {
    expect([200, 301, 400, 401, 404, 408, 429, 500, 503].filter(isRetryableStatus)).to.deep.equal([
      408, 429, 500, 503,
    ]);
  });
  it('accepts https targets, http only when allowed, never credentials', () => {
    const strict = { allowHttp: false, allowPrivate: false };
    expect(urlProblem('https://a.example.com/x', strict)).to.equal(undefined);
    const https = /^Use an https:\/\/ address: plain http is accepted only for localhost/;
    expect(urlProblem('http://a.example.com/x', strict)).to.match(https);
    expect(urlProblem('http://127.0.0.1:9999/hook', strict)).to.match(https);
    expect(urlProblem('http://a.example.com/x', { ...strict, allowHttp: true })).to.equal(undefined);
    expect(urlProblem('https://u:p@a.example.com/', strict)).to.match(/^Remove the user name and password/);
    expect(urlProblem('ftp://a.example.com/', strict)).to.equal(
      'Addresses starting with ftp:// are not supported: use an https:// address.',
    );
    expect(urlProblem('not a url', strict)).to.match(/^The address is not a URL: enter a full address/);
  });
  it('takes plain http to localhost and loopback addresses only under the loopback allowance', () => {
    const laptop = { allowHttp: false, allowPrivate: 'loopback' as const };
    for (const url of [
      'http://localhost:9999/hook',
      'http://api.localhost/hook',
      'http://127.0.0.1:9999/hook',
      'http://127.9.9.9/hook',
      'http://[::1]:9999/hook',
      'http://[::ffff:127.0.0.1]/hook',
    ])
      expect(urlProblem(url, laptop), url).to.equal(undefined);
    for (const url of [
      'http://10.0.0.1/hook',
      'http://169.254.169.254/latest',
      'http://[fe80::1]/hook',
      'http://a.example.com/hook',
      'http://localhost.example.com/hook',
    ])
      expect(urlProblem(url, laptop), url).to.match(/^Use an https:\/\/ address/);
  });
  it('reads WEBHOOK_RETRY_SCHEDULE with units and refuses a lease not longer than the timeout', () => {
    expect(loadConfig(baseEnv).webhooks.retryScheduleMs).to.deep.equal([
      30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000,
    ]);
    expect(
      loadConfig({ ...baseEnv, WEBHOOK_RETRY_SCHEDULE: '100ms, 1.5s,2m' }).webhooks.retryScheduleMs,
    ).to.deep.equal([100, 1500, 120_000]);
    expect(() => loadConfig({ ...baseEnv, WEBHOOK_RETRY_SCHEDULE: '10 minutes' })).to.throw(
      /WEBHOOK_RETRY_SCHEDULE/,
    );
    expect(() => loadConfig({ ...baseEnv, WEBHOOK_LEASE_MS: '5000', WEBHOOK_TIMEOUT_MS: '10000' })).to.throw(
      /WEBHOOK_LEASE_MS must be longer/,
    );
  });
});
