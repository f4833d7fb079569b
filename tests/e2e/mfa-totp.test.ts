import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signOut } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { codeAt } from '../support/mfa';

// Two-step sign-in in a real browser: an authenticator app set up in Settings (its code computed here
// from the key the page shows, as the app would), then signing in with a code, and with a recovery code
// that works once.

async function signInWithPassword(page: Page, url: string) {
  await page.goto(url);
  await page.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
  await page.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe.runIf(hasChromium())('Two-step sign-in', () => {
  const live = useLiveBrowserSuite();

  it('sets up an authenticator app in Settings, then signs in with a code, and with a recovery code once', async () => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await signInWithPassword(page, live.app.url);
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    await page.goto(`${live.app.url}/settings`);
    const panel = page.getByRole('region', { name: 'Two-step sign-in' });
    await panel.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await panel.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await panel.getByTestId('totp-secret').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await saveScreenshot(page, 'settings-two-step-setup-1280');
    await panel.getByRole('textbox', { name: 'Enter the 6-digit code the app shows' }).fill(await codeAt(secret));
    await panel.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    const list = panel.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    const recoveryCodes = (await list.locator('li').allTextContents()).map((code) => code.trim());
    expect(recoveryCodes).toHaveLength(10);
    await panel.getByRole('button', { name: 'I have saved them' }).click();
    await panel.getByText('An authenticator app is set up. 10 recovery codes are left.').waitFor();

    await signOut(page);
    await signInWithPassword(page, live.app.url);
    const code = page.getByRole('textbox', { name: 'Enter the 6-digit code from your authenticator app' });
    await code.fill('000000');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(/That code is not right|already been used/).waitFor();
    // The next step's code: the one that confirmed the set-up is spent.
    await code.fill(await codeAt(secret, new Date(), 1));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    await signOut(page);
    await signInWithPassword(page, live.app.url);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    await signOut(page);
    await page.setViewportSize({ width: 390, height: 844 });
    await signInWithPassword(page, live.app.url);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[0]!);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('That recovery code is not right, or it has already been used.').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await saveScreenshot(page, 'sign-in-recovery-code-390');
    await context.close();
  });
});
