import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { hasChromium, launchChromium, saveScreenshot } from '../support/browser';
import { match } from '../support/matchers';

describe.runIf(hasChromium())('the runnable spine in Chromium', () => {
  let app: TAppProcess;
  let browser: Browser;

  beforeAll(async () => {
    app = await startAppProcess();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  it('the demo director signs in, opens a seeded client and sees its timeline', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(app.url);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByText('director@demo.firm').first().waitFor(); // demo mode shows the demo credentials
    await saveScreenshot(page, 'sign-in');

    await page.getByRole('button', { name: 'Director' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    await page.locator('.row-title', { hasText: 'Emily Novak' }).waitFor(); // the heading comes before the list's rows
    const names = await page.locator('.row-title').allInnerTexts();
    expect(names).toEqual(
      match.arrayContaining(['Amelia Hart', 'Benedict Okafor', 'Chloe Martin', 'Daniel Reyes', 'Daniela Reyes', 'Emily Novak']),
    );
    await saveScreenshot(page, 'clients');

    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('heading', { name: 'Amelia Hart' }).waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.waitFor();
    const items = await timeline.locator('li').allInnerTexts();
    expect(items.length).toBeGreaterThanOrEqual(5);
    expect(items[0]).toContain('Invoice INV-2041');
    expect(items.join('\n')).toContain('Letter before action');
    await saveScreenshot(page, 'client-timeline');

    await page.getByRole('link', { name: /HART-2026-001/ }).click();
    await page.getByRole('heading', { name: /Northwind Lettings/ }).waitFor();
    expect(await page.getByRole('list', { name: 'Timeline' }).locator('li').count()).toBeGreaterThanOrEqual(3);
    await saveScreenshot(page, 'case-timeline');
  });

  it('a staff member at 360 px wide signs in with the shown credentials and reaches the clients list', async () => {
    const page = await browser.newPage({ viewport: { width: 360, height: 740 } });
    await page.goto(`${app.url}/clients`);
    await page.getByRole('button', { name: 'Staff' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Clients' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await saveScreenshot(page, 'clients-mobile');
  });
});
