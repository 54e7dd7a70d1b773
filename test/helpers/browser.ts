// Debian's Chromium driven by playwright-core (no browser download): the one launcher of the
// browser tests. CHROMIUM_PATH names another build.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Launches Chromium; fails loudly when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run bash scripts/install.sh (apt-get install chromium)`);
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** Chromium with a page opened at `origin`. */
export async function openPage(origin: string): Promise<{ browser: Browser; page: Page }> {
  const browser = await launchBrowser();
  const page = await browser.newPage();
  await page.goto(origin);
  return { browser, page };
}
