// The dashboard's Content-Security-Policy as a script injected into its page meets it: an image or
// a fetch to any https host is refused by the browser (nothing the page shows can be carried off
// through them), while the configured places (the public API, the operator's bucket and
// DASHBOARD_CONTENT_ORIGINS, for projects' own buckets) stay reachable.
import { expect } from 'chai';
import { shootFailures, startDashboardE2E, type DashboardE2E } from '../helpers/dashboard-e2e.js';

const BUCKET = 'https://own-bucket.example.net';
const ELSEWHERE = 'https://collector.example.com';

describe('web dashboard: its Content-Security-Policy', function () {
  this.timeout(60_000);
  let e2e: DashboardE2E;
  before(async () => {
    e2e = await startDashboardE2E('web_csp', { DASHBOARD_CONTENT_ORIGINS: BUCKET });
  });
  shootFailures('csp', () => e2e);
  after(() => e2e?.close());

  it('refuses images and requests to hosts nobody configured, and allows the configured ones', async () => {
    const { page } = e2e;
    await page.goto(`${e2e.origin}${e2e.projectPath}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    const targets = [ELSEWHERE, BUCKET, e2e.publicApp.url];
    // Through the debugging protocol, as an injected script would act: CSP governs what it loads.
    const refused = await page.evaluate(async (urls) => {
      const seen: string[] = [];
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(`${e.effectiveDirective} ${e.blockedURI}`),
      );
      for (const url of urls) {
        const img = document.createElement('img');
        img.src = `${url}/pixel.png`;
        document.body.append(img);
        await fetch(`${url}/beacon`, { mode: 'no-cors' }).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      return seen.sort();
    }, targets);
    expect(refused).to.deep.equal([`connect-src ${ELSEWHERE}/beacon`, `img-src ${ELSEWHERE}/pixel.png`]);
  });
});
