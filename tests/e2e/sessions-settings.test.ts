import type { Browser } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// Settings, "Where you're signed in": a person sees each browser signed in as them and signs one out;
// that browser's open page goes back to the sign-in page by itself.
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

const STAFF = { email: 'staff@demo.firm', password: 'demo-staff-pass' };
const DIRECTOR = { email: 'director@demo.firm', password: 'demo-director-pass' };

async function signInStaff(
  browser: Browser,
  url: string,
  userAgent: string,
  viewport: { width: number; height: number },
  person: { email: string; password: string } = STAFF,
) {
  const context = await browser.newContext({ viewport, userAgent });
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Email' }).fill(person.email);
  await page.getByRole('textbox', { name: 'Password' }).fill(person.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Inbox' }).waitFor();
  return { context, page };
}

describe.runIf(hasChromium())('Settings: where you are signed in', () => {
  const live = useLiveBrowserSuite();

  it('at 390 px: lists this phone and the other browser, signs the other out, and its open page signs out by itself', async () => {
    const desk = await signInStaff(live.browser, live.app.url, WINDOWS, { width: 1280, height: 860 });
    const phone = await signInStaff(live.browser, live.app.url, IPHONE, { width: 390, height: 844 });
    await liveStreamOpen(desk.page);

    await phone.page.goto(`${live.app.url}/settings`);
    const panel = phone.page.getByRole('region', { name: 'Where you’re signed in' });
    const list = panel.getByRole('list', { name: 'Your sessions' });
    await list.locator('li', { hasText: 'Chrome on Windows' }).waitFor();
    expect(await list.locator('li[data-current="true"]').textContent()).toMatch(/Safari on iPhone\s*This device/);
    // Only the other session can be signed out from here, and its button says which it is.
    const signOut = panel.getByRole('button', { name: /^Sign out Chrome on Windows, last active / });
    expect(await panel.getByRole('button', { name: /^Sign out Safari on iPhone/ }).count()).toBe(0);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await saveScreenshot(phone.page, 'settings-sessions-390');

    await signOut.click();
    await panel.getByText('Sign it out now?').waitFor();
    await panel.getByRole('button', { name: 'Sign out', exact: true }).click();
    await phone.page.getByRole('status').filter({ hasText: 'Chrome on Windows is signed out.' }).waitFor();
    await list.locator('li', { hasText: 'Chrome on Windows' }).waitFor({ state: 'detached' });
    expect(await list.locator('li').count()).toBe(1);

    await desk.page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 8_000 });
    await desk.page.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();
    await desk.context.close();
    await phone.context.close();
  });

  it('a director sees where someone is signed in (People) and signs them out everywhere; their open page follows', async () => {
    const staff = await signInStaff(live.browser, live.app.url, WINDOWS, { width: 1280, height: 860 });
    await liveStreamOpen(staff.page);
    const director = await signInStaff(live.browser, live.app.url, IPHONE, { width: 1280, height: 860 }, DIRECTOR);
    await director.page.goto(`${live.app.url}/settings`);
    const person = director.page.locator('li.person', { hasText: STAFF.email });
    await person.getByRole('button', { name: /^Sessions of / }).click();
    const list = person.getByRole('list', { name: /^Sessions of / });
    await list.locator('li', { hasText: 'Chrome on Windows' }).waitFor();
    await person.getByRole('button', { name: /^Sign .* out everywhere$/ }).click();
    await person.getByRole('button', { name: 'End them' }).click();
    await director.page
      .getByRole('status')
      .filter({ hasText: /is signed out everywhere \(\d+ sessions? ended\)/ })
      .waitFor();
    await person.getByText(/is not signed in anywhere/).waitFor();

    await staff.page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 8_000 });
    await staff.context.close();
    await director.context.close();
  });
});
