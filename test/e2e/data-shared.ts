// What the data pages' browser flows share: both HTTP roles on the test stack at known ports, a
// developer signed in through the session cookie, screenshots, and an axe-core check (serious
// and critical violations fail the flow).
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser.js';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import { createOperator, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { repoPath } from '../../src/lib/paths.js';
import { AXE, freePort } from '../helpers/dashboard-e2e.js';

const SHOTS = repoPath('screenshots');

export interface DataBrowserRig {
  publicApp: TestApp;
  dashboard: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  origin: string;
  fx: ProjectFixture;
  consoleErrors: string[];
  close(): Promise<void>;
}

export async function startRig(
  suite: string,
  overrides: Record<string, string> = {},
): Promise<DataBrowserRig> {
  await mkdir(SHOTS, { recursive: true });
  const [publicPort, dashboardPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${dashboardPort}`;
  const shared = {
    PLATFORM_DB: suiteDatabase(suite),
    S3_BUCKET: '',
    PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
    DASHBOARD_URL: origin,
    ...overrides,
  };
  const publicApp = await startTestApp('public', suite, shared, publicPort);
  const dashboard = await startTestApp('dashboard', suite, shared, dashboardPort);
  // The installation's first account is its operator (no plan limits): the owner is the second,
  // on the plan new accounts get, as in the dashboard rig.
  await createOperator(dashboard.services);
  const fx = await createProjectFixture(dashboard.services, 'Shop');
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const [name, value] = fx.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: origin }]);
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  return {
    publicApp,
    dashboard,
    browser,
    context,
    page,
    origin,
    fx,
    consoleErrors,
    async close() {
      await browser.close();
      await dashboard.close();
      await publicApp.close();
    },
  };
}

/**
 * Saves a screenshot for the docs. It illustrates, it asserts nothing: one that Chromium does not
 * finish in time (a tall full-page shot on a loaded machine once took over 30 s) is reported and
 * the test goes on to its assertions.
 */
export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true, timeout: 15_000 }).then(
    () => undefined,
    (err: unknown) =>
      console.warn(`      (screenshot ${name} not taken: ${(err as Error).message.split('\n')[0]})`),
  );

/** Runs axe-core on the page as it is; fails on any serious or critical violation. */
export async function checkAxe(page: Page, where: string): Promise<void> {
  const loaded = () => page.evaluate(() => 'axe' in window);
  if (!(await loaded())) {
    // page.addScriptTag writes an inline script, which the page's CSP refuses (and logs); the
    // debugging protocol's evaluation is not subject to it.
    await page.evaluate(await readFile(AXE, 'utf8'));
  }
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (o?: unknown) => Promise<any> } }).axe;
    const result = await axe.run({ resultTypes: ['violations'] });
    return (result.violations as any[])
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`,
      );
  });
  if (violations.length) throw new Error(`axe on ${where}:\n${violations.join('\n')}`);
}

/** How far the page scrolls sideways (tables scroll inside their own box, not the page). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
