import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { hasChromium, launchChromium, signInDemo } from '../support/browser';

// What the trail shows came partly from outside: a character that hides itself or turns the text
// around must be seen for what it is, never take effect on the page.
describe.runIf(hasChromium())('the audit page shows hidden characters by their code', () => {
  let app: TAppProcess;
  let browser: Browser;
  beforeAll(async () => {
    app = await startAppProcess(); // demo mode: the demo accounts are seeded
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
  });

  // A failed sign-in stores the email as typed: here with a right-to-left override (the rest reads
  // "exe.pdf"), an Arabic letter mark, a zero-width space and a byte order mark.
  const typed = 'invoice\u202Efdp.exe\u061C\u200B\uFEFF@firm.test';
  const shown = 'invoice[U+202E]fdp.exe[U+061C][U+200B][U+FEFF]@firm.test';

  beforeAll(async () => {
    const res = await fetch(`${app.url}/trpc/auth.signIn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ json: { email: typed, password: 'not-the-password' } }),
    });
    expect(res.status).toBe(401);
  });

  it.each([
    ['the table', 1280, 'tr'],
    ['the phone layout', 390, '.audit-list li'],
  ])('in %s', async (_layout, width, item) => {
    const { page, context } = await signInDemo(browser, app.url, 'Director', { width });
    await page.goto(`${app.url}/audit`);
    const event = page.locator(`${item}[data-action="auth.sign_in_failed"]`, { hasText: 'invoice' });
    await event.first().waitFor();
    const text = (await event.first().textContent()) ?? '';
    expect(text).toContain(`email:${shown}`); // the subject
    expect(text).toContain(`email: ${shown}`); // the detail
    expect(text).not.toMatch(/[\u202E\u061C\u200B\uFEFF]/);
    await context.close();
  });
});
