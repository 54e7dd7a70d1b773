// The browser flows' common start: both HTTP roles on the real test stack (fixed ports, so the
// dashboard knows the public origin), Chromium through playwright-core, a logged-in developer
// with a project, and the checks every page gets: axe-core (no serious or critical violation), a
// phone-width pass (no sideways scroll outside a table) and screenshots under screenshots/.
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { startTestApp, suiteDatabase, type TestApp } from './app.js';
import { createOperator, createProjectFixture, type ProjectFixture } from './fixtures.js';
import { repoPath } from '../../src/lib/paths.js';

const SHOTS = repoPath('screenshots');
export const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** A port nothing listens on now (the apps' origins must be known before they start). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export interface DashboardE2E {
  origin: string;
  publicApp: TestApp;
  dashboard: TestApp;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Errors the page logged (script errors, CSP refusals); refused calls are the API's to log. */
  consoleErrors: string[];
  /**
   * The installation's operator (its first account, no plan limits), signed up before the owner
   * so that the owner is an ordinary developer on the plan new accounts get. Not logged in.
   */
  operator: { cookie: string; developer: ProjectFixture['developer'] };
  /** A developer with a project, logged in to the browser. */
  owner: ProjectFixture;
  /** The project's pages start here: `/projects/<id>`. */
  projectPath: string;
  /** axe, a screenshot at 1280 px, then the phone-width pass and its screenshot. */
  checkPage(name: string): Promise<void>;
  close(): Promise<void>;
}

/** axe-core's serious and critical violations on the page as it is now, in words. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, which the page's script-src does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await readFile(AXE, 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run(ctx: Document): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    interface AxeViolation {
      id: string;
      impact: string;
      help: string;
      nodes: { target: string[] }[];
    }
    return (await axe.run(document)).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.slice(0, 3).join(', ')})`);
}

/** How far the page scrolls sideways at its current width (0 when it fits). */
export const sidewaysOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** `overrides`: settings of both roles (ALLOW_PRIVATE_HOSTS for a local webhook receiver, say). */
/** Saves what the page showed when a test failed (screenshots/failed-<suite>.png), to see why. */
export function shootFailures(suite: string, current: () => DashboardE2E | undefined): void {
  afterEach(async function () {
    const e2e = current();
    if (this.currentTest?.state === 'failed' && e2e) {
      await e2e.page
        .screenshot({ path: path.join(SHOTS, `failed-${suite}.png`), fullPage: true })
        .catch(() => undefined);
    }
  });
}

export async function startDashboardE2E(
  suite: string,
  overrides: Record<string, string> = {},
): Promise<DashboardE2E> {
  await mkdir(SHOTS, { recursive: true });
  const [publicPort, dashboardPort] = [await freePort(), await freePort()];
  const origin = `http://127.0.0.1:${dashboardPort}`;
  const shared = {
    PLATFORM_DB: suiteDatabase(suite),
    PUBLIC_URL: `http://127.0.0.1:${publicPort}`,
    DASHBOARD_URL: origin,
    ...overrides,
  };
  const publicApp = await startTestApp('public', suite, shared, publicPort);
  const dashboard = await startTestApp(
    'dashboard',
    suite,
    { ...shared, PUBLIC_INTERNAL_URL: publicApp.url },
    dashboardPort,
  );
  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on(
    'console',
    (m) =>
      m.type() === 'error' && !m.text().startsWith('Failed to load resource') && consoleErrors.push(m.text()),
  );
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  const operator = await createOperator(dashboard.services);
  const owner = await createProjectFixture(dashboard.services, 'Shop');
  const [name, value] = owner.cookie.split('=') as [string, string];
  await context.addCookies([{ name, value, url: origin }]);

  return {
    origin,
    publicApp,
    dashboard,
    browser,
    context,
    page,
    consoleErrors,
    operator,
    owner,
    projectPath: `/projects/${owner.project.id}`,
    async checkPage(shot: string) {
      expect(await axeViolations(page), `axe on ${shot}`).to.deep.equal([]);
      await page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.waitForFunction(() => window.innerWidth === 390);
        const overflow = await sidewaysOverflow(page);
        if (overflow > 0) {
          // Name what sticks out, to find it.
          const wide = await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
              .filter((el) => !el.closest('.table-wrap') || getComputedStyle(el).position === 'absolute')
              .slice(0, 5)
              .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
          );
          expect.fail(`sideways scroll of ${overflow} px at 390 px on ${shot}: ${wide.join(', ')}`);
        }
        await page.screenshot({ path: path.join(SHOTS, `phone-${shot}.png`), fullPage: true });
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    },
    async close() {
      await browser.close().catch(() => undefined);
      await dashboard.close();
      await publicApp.close();
    },
  };
}
