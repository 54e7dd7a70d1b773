import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { publicProfileView, userView, SECRET_USER_FIELDS } from '../../src/services/user-auth/fields.js';
import { redirectTarget } from '../../src/services/user-auth/social.js';
import { oauthClient, pkceChallenge } from '../../src/services/user-auth/oauth-providers.js';
import { codeMail, escapeHtml } from '../../src/mail/templates.js';
import type { Project } from '../../src/services/types.js';
import { loadConfig } from '../../src/config.js';

const project = (settings: Partial<Project['settings']>) =>
  ({ settings: { allowedOrigins: [], endUserAuth: true, siteUrl: null, ...settings } }) as unknown as Project;

describe('user-auth rules', () => {
  it('never lets the password out, and the public profile is an allowlist', () => {
    const user = {
      _id: 'a',
      email: 'a@x.test',
      password: '$argon2id$...',
      name: 'A',
      username: 'a',
      bio: 'b',
      isDeleted: false,
      deletedAt: null,
    };
    expect(SECRET_USER_FIELDS).to.include('password');
    expect(userView(user)).to.deep.equal({ _id: 'a', email: 'a@x.test', name: 'A', username: 'a', bio: 'b' });
    expect(publicProfileView(user)).to.deep.equal({ _id: 'a', name: 'A', username: 'a' });
  });

  it('accepts redirects only within the site URL or the allowed origins', () => {
    const p = project({ siteUrl: 'https://app.example/base', allowedOrigins: ['http://localhost:5173'] });
    expect(redirectTarget(p, 'https://app.example/cb?x=1')).to.equal('https://app.example/cb?x=1');
    expect(redirectTarget(p, 'http://localhost:5173/cb')).to.equal('http://localhost:5173/cb');
    expect(redirectTarget(p, undefined)).to.equal('https://app.example/base');
    for (const bad of [
      'https://app.example.evil/cb',
      'http://app.example/cb',
      'https://evil/cb?https://app.example',
      'not a url',
      'javascript:alert(1)',
    ]) {
      expect(() => redirectTarget(p, bad), bad).to.throw('redirectUrl must be within');
    }
    expect(() => redirectTarget(project({}), 'https://app.example/cb')).to.throw('site URL');
  });

  it('builds the authorize URL with state and an S256 PKCE challenge', () => {
    const client = oauthClient('google', {
      clientId: 'id',
      clientSecret: 'secret',
      authorizeUrl: 'https://idp.example/auth?prompt=consent',
      tokenUrl: 'https://idp.example/token',
      userinfoUrl: 'https://idp.example/userinfo',
      emailsUrl: undefined,
    });
    const url = new URL(
      client.authorizeUrl({
        state: 's',
        redirectUri: 'https://api.example/cb',
        codeVerifier: 'v'.repeat(64),
      }),
    );
    expect(Object.fromEntries(url.searchParams)).to.deep.equal({
      prompt: 'consent',
      response_type: 'code',
      client_id: 'id',
      redirect_uri: 'https://api.example/cb',
      scope: 'openid email profile',
      state: 's',
      code_challenge: createHash('sha256').update('v'.repeat(64)).digest('base64url'),
      code_challenge_method: 'S256',
    });
    expect(url.toString()).not.to.include('secret');
    expect(pkceChallenge('abc')).to.equal('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it('enables a social provider by its client id, with default or replaced endpoints', () => {
    const base = {
      MONGODB_URI: 'mongodb://127.0.0.1:27017',
      ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      INTERNAL_API_SECRET: 'x'.repeat(43),
    };
    const none = loadConfig(base);
    expect(none.oauth).to.deep.equal({ github: undefined, google: undefined });
    expect(none.userAuthSignupsPerHour).to.equal(30);
    const some = loadConfig({
      ...base,
      OAUTH_GITHUB_CLIENT_ID: 'gh',
      OAUTH_GITHUB_CLIENT_SECRET: 'ghs',
      OAUTH_GOOGLE_CLIENT_ID: 'go',
      OAUTH_GOOGLE_CLIENT_SECRET: 'gos',
      OAUTH_GOOGLE_TOKEN_URL: 'http://127.0.0.1:9999/token',
    });
    expect(some.oauth.github).to.include({ clientId: 'gh', emailsUrl: 'https://api.github.com/user/emails' });
    expect(some.oauth.google).to.include({ tokenUrl: 'http://127.0.0.1:9999/token', emailsUrl: undefined });
    expect(() => loadConfig({ ...base, OAUTH_GOOGLE_CLIENT_ID: 'go' })).to.throw(
      'OAUTH_GOOGLE_CLIENT_SECRET is required',
    );
    expect(() =>
      loadConfig({
        ...base,
        OAUTH_GITHUB_CLIENT_ID: 'gh',
        OAUTH_GITHUB_CLIENT_SECRET: 's',
        OAUTH_GITHUB_TOKEN_URL: 'ftp://x',
      }),
    ).to.throw('OAUTH_GITHUB_TOKEN_URL');
  });

  it('reduces the app name of code mails to plain words, escaped in the HTML', () => {
    const mail = codeMail('verify-email', '012345', '<b>Shop & Co</b>', 15);
    expect(mail.text).to.include('Your code is 012345');
    // Markup characters are dropped from the project's name (mailAppName); `&` stays, escaped.
    expect(mail.html).to.include('b Shop &amp; Co b');
    expect(mail.html).not.to.match(/<b>|&lt;b&gt;/);
    expect(escapeHtml(`"'`)).to.equal('&quot;&#39;');
  });
});
