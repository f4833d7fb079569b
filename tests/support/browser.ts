import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/**
 * Debian's chromium-headless-shell: Chromium's engine and DevTools protocol without the browser
 * around them, what Playwright itself runs for headless tests. Used when installed (.ci/run installs
 * it): the e2e suite took ~40% less CPU with it than with the full browser on a 2-core machine
 * (tests/README.md "End to end"). `E2E_FULL_CHROMIUM=1` drives the full browser instead.
 */
export const HEADLESS_SHELL_PATH = '/usr/lib/chromium/chromium-headless-shell';

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '../e2e/screenshots');

/**
 * Whether e2e can run here. Under CI=true a missing browser is a failure, never a skip;
 * on a developer machine the suite is skipped with a loud message.
 */
export function hasChromium(): boolean {
  if (existsSync(CHROMIUM_PATH) || existsSync(HEADLESS_SHELL_PATH)) return true;
  if (process.env.CI === 'true')
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: apt-get install -y chromium chromium-headless-shell`);
  console.warn(`\n!!! e2e SKIPPED: no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium chromium-headless-shell) !!!\n`);
  return false;
}

/** The Chromium the e2e tests drive: the headless shell when installed, unless E2E_FULL_CHROMIUM=1. */
function chromiumPath(): string {
  const full = process.env.E2E_FULL_CHROMIUM === '1' || !existsSync(HEADLESS_SHELL_PATH);
  return full ? CHROMIUM_PATH : HEADLESS_SHELL_PATH;
}

/**
 * How long a page's action or wait may take before it fails: 60 s, not Playwright's 30. Every wait is for
 * a readiness signal and returns as soon as it holds; with two suites on two cores (each with its
 * workers' apps and browsers) a live update or a form took over 30 s to appear (tests/README.md "End to end").
 */
export const PAGE_TIMEOUT_MS = 60_000;

export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  // Every context the tests open gets the ceiling, whichever helper or test opens it.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(PAGE_TIMEOUT_MS);
    return context;
  };
  return browser;
}

/**
 * Whether the e2e tests photograph what they drive: `E2E_SCREENSHOTS=1` (tests/README.md "End to end").
 * Off by default: encoding a full-page PNG is CPU the run shares with every worker's browser, and a
 * shot asserts nothing; a person who will look at the screens asks for them.
 */
export const SCREENSHOTS_ON = process.env.E2E_SCREENSHOTS === '1';

/**
 * `target` (a page, full length unless `fullPage: false`, or one element) photographed as
 * tests/e2e/screenshots/<name>.png when screenshots are on; the file's path, or null when they are off.
 */
export async function saveScreenshot(
  target: Page | Locator,
  name: string,
  options: { fullPage?: boolean; clip?: { x: number; y: number; width: number; height: number } } = {},
): Promise<string | null> {
  if (!SCREENSHOTS_ON) return null;
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage: options.fullPage ?? true, clip: options.clip });
  else await target.screenshot({ path: file });
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

/**
 * Signs out with the top bar's button, as a person does. Signing out loads the app afresh: this
 * resolves once the new page has loaded and asks to sign in (a step taken sooner is lost with the old page).
 */
export async function signOut(page: Page): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Sign out' }).click()]);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
}

/**
 * Resolves once the page's live-updates stream has started (the SPA marks it on <html data-live>):
 * a change made before then would reach the page only with the next resync, not live.
 */
export async function liveStreamOpen(page: Page): Promise<void> {
  await page.waitForSelector('html[data-live="open"]', { state: 'attached' });
}

/**
 * Resolves once `locator`'s element has kept its place and size on screen for `frames` animation
 * frames in a row: a smooth scroll has ended, rows measured after they were drawn have been placed.
 * Rejects when it is still moving after `timeoutMs`.
 */
export async function untilStill(locator: Locator, { frames = 3, timeoutMs = 10_000 } = {}): Promise<void> {
  await locator.evaluate(
    (element, { frames, timeoutMs }) =>
      new Promise<void>((resolve, reject) => {
        const deadline = performance.now() + timeoutMs;
        let last = '';
        let still = 0;
        const look = () => {
          const box = element.getBoundingClientRect();
          const now = [box.top, box.left, box.width, box.height].join(' ');
          still = now === last ? still + 1 : 0;
          last = now;
          if (still >= frames) resolve();
          else if (performance.now() > deadline) reject(new Error(`still moving after ${timeoutMs} ms (at ${now})`));
          else requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
      }),
    { frames, timeoutMs },
  );
}

/**
 * The bubble of a message sent with `text`, once the server has stored it: the optimistic copy shown
 * first has a negative id and is still only in this browser (a context closed then loses the send).
 */
export async function storedBubble(page: Page, text: string): Promise<Locator> {
  const bubble = page.locator('.bubble-row[data-id]:not([data-id^="-"])', { hasText: text });
  await bubble.waitFor();
  return bubble;
}
