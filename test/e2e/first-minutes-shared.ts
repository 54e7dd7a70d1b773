// What the first-minutes browser flows share: axe-core with every violation counted (the common
// check fails only on serious and critical ones; landmark-unique and page-has-heading-one are
// moderate), so the pages of issue 40 are held to none at all.
import { readFile } from 'node:fs/promises';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { AXE } from '../helpers/dashboard-e2e.js';

/** Every axe-core violation on the page as it is now, in words. */
export async function allAxeViolations(page: Page): Promise<string[]> {
  // Evaluated through the debugging protocol, which the page's script-src does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await readFile(AXE, 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(ctx: Document): Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    return (await axe.run(document)).violations.map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} (${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')})`,
    );
  });
}

export async function expectNoAxeViolation(page: Page, where: string): Promise<void> {
  expect(await allAxeViolations(page), `axe (every impact) on ${where}`).to.deep.equal([]);
}
