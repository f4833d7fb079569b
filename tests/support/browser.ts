import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../e2e/screenshots');

/**
 * Whether e2e can run here. Under CI=true a missing browser is a failure, never a skip;
 * on a developer machine the suite is skipped with a loud message.
 */
export function hasChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  if (process.env.CI === 'true') throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: apt-get install -y chromium`);
  console.warn(`\n!!! e2e SKIPPED: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium) !!!\n`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/** A new browser context signed in as a demo account (on the Inbox once signed in). */
export async function signInDemo(
  browser: Browser,
  url: string,
  role: 'Director' | 'Staff',
  options: { width?: number; height?: number; acceptDownloads?: boolean; bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP: axe-core is injected as a script, which the app's CSP rightly forbids.
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    acceptDownloads: options.acceptDownloads,
    bypassCSP: options.bypassCSP,
  });
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Email' }).fill(role === 'Director' ? 'director@demo.firm' : 'staff@demo.firm');
  await page.getByRole('textbox', { name: 'Password' }).fill(role === 'Director' ? 'demo-director-pass' : 'demo-staff-pass');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  return { context, page };
}
