import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { saveScreenshot } from './browser';
import { axeOn } from './axe';

/**
 * A test's limit when it checks several screens at both widths besides heavier work (a retention
 * batch, an erasure, downloads): ~50–65 s alone, up to ~190 s on a machine running two suites at once
 * (a clean clone's CI beside another). A limit for a hang, not for speed.
 */
export const HEAVY_TEST_MS = 300_000;

/**
 * The page as it stands, at 1280 and at 390 px: photographed (with E2E_SCREENSHOTS=1), axe's serious and
 * critical findings none, and nothing scrolling sideways — soft, so one run names every screen that fails.
 */
export async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    // From the top: a full-page shot of a scrolled page draws the sticky top bar mid-page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(page, `${name}-${width}`);
    const { violations } = await axeOn(page);
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect
      .soft(
        serious.map((v) => `${v.id}: ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`),
        `axe on ${name} at ${width} px`,
      )
      .toEqual([]);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect.soft(wide, `${name} scrolls sideways at ${width} px`).toBe(0);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}
