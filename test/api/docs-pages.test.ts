// The /docs reference pages carry the dashboard's protections (a Content-Security-Policy, no
// framing), Swagger UI still renders under them in a real browser, and a TLS deployment answers
// with Strict-Transport-Security.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import { HSTS } from '../../src/http/transport.js';

const PAGES = ['/docs', '/docs/init.js', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js'];

describe('/docs pages: CSP, framing and HSTS', () => {
  let publicApp: TestApp;
  let dashboard: TestApp;
  before(async () => {
    publicApp = await startTestApp('public', 'docs_pages');
    dashboard = await startTestApp('dashboard', 'docs_pages');
  });
  after(async () => {
    await publicApp?.close();
    await dashboard?.close();
  });

  it('sends a CSP without inline scripts, frame-ancestors none and X-Frame-Options on every page of both roles', async () => {
    for (const app of [publicApp, dashboard]) {
      for (const path of PAGES) {
        const res = await fetch(`${app.url}${path}`);
        expect(res.status, path).to.equal(200);
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp, path).to.include("frame-ancestors 'none'");
        expect(csp, path).to.include("script-src 'self'");
        expect(csp, path).not.to.include('unsafe-inline');
        expect(csp, path).not.to.include('unsafe-eval');
        expect(res.headers.get('x-frame-options'), path).to.equal('DENY');
        expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      }
      // Plain http deployment, plain http request: no HSTS (a browser would ignore it anyway).
      expect((await fetch(`${app.url}/docs`)).headers.get('strict-transport-security')).to.equal(null);
    }
  });

  it('renders Swagger UI in Chromium with no CSP violation', async function () {
    this.timeout(60_000);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (msg) => {
        if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
      });
      await page.goto(`${publicApp.url}/docs`);
      await page.waitForSelector('.opblock', { timeout: 30_000 });
      expect(await page.locator('.opblock').count()).to.be.greaterThan(10);
      expect(violations).to.deep.equal([]);
      // The page cannot be framed by another origin.
      const framed = await browser.newPage();
      await framed.setContent(`<iframe src="${publicApp.url}/docs"></iframe>`);
      await framed.waitForTimeout(1000);
      const frame = framed.frames().find((f) => f.url().includes('/docs'));
      const rendered = frame
        ? await frame
            .locator('#ui')
            .count()
            .catch(() => 0)
        : 0;
      expect(rendered).to.equal(0);
    } finally {
      await browser.close();
    }
  });

  describe('over TLS', () => {
    let tls: TestApp;
    let proxied: TestApp;
    before(async () => {
      tls = await startTestApp('public', 'docs_tls', { PUBLIC_URL: 'https://api.example.test' });
      proxied = await startTestApp('dashboard', 'docs_tls_proxy', { TRUST_PROXY: 'true' });
    });
    after(async () => {
      await tls?.close();
      await proxied?.close();
    });

    it('answers every route with HSTS when the external URL is https, without TRUST_PROXY', async () => {
      for (const path of ['/docs', '/api/health', '/api/nothing-here']) {
        const res = await fetch(`${tls.url}${path}`);
        expect(res.headers.get('strict-transport-security'), path).to.equal(HSTS);
      }
      // "Try it out" may call the documented server, here another origin than the page's.
      const csp = (await fetch(`${tls.url}/docs`)).headers.get('content-security-policy');
      expect(csp).to.include("connect-src 'self' https://api.example.test");
    });

    it('answers a request that arrived over TLS (through a trusted proxy) with HSTS', async () => {
      const secure = await fetch(`${proxied.url}/docs`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(secure.headers.get('strict-transport-security')).to.equal(HSTS);
      const plain = await fetch(`${proxied.url}/docs`);
      expect(plain.headers.get('strict-transport-security')).to.equal(null);
    });
  });
});
