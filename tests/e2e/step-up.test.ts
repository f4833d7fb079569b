import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { codeAt, enrolTotp } from '../support/mfa';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';

// The firm's policy and step-up in a real browser (server/auth/README.md "Step-up and the firm's
// policy"): a policy that holds people at enrolment until they set up a second factor, and the
// "Confirm it's you" dialog a wall change or a restricted matter's export asks for.

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe.runIf(hasChromium())('step-up and the sign-in policy in Chromium', () => {
  const live = useLiveBrowserSuite();

  /** The person's proof of a second factor, as if given 11 minutes ago: the next guarded change asks again. */
  const ageProof = (email: string) =>
    sql(
      live.ownerUrl,
      `UPDATE sessions SET second_factor_at = now() - interval '11 minutes'
        WHERE second_factor_at IS NOT NULL AND user_id = (SELECT id FROM users WHERE email = $1)`,
      [email],
    );

  it('a policy of "Everyone" holds each person at the set-up page until they have an authenticator app', async () => {
    const { context, page } = await signInDemo(live.browser, live.app.url, 'Director');
    await page.goto(`${live.app.url}/settings`);
    const policy = page.getByRole('form', { name: 'Sign-in policy' });
    await policy.getByRole('radio', { name: 'Everyone' }).check();
    // The director has no second factor to prove: the change is not asked for one.
    await policy.getByRole('button', { name: 'Save policy' }).click();
    await page.getByText('Sign-in policy saved.').waitFor();
    expect(await page.getByRole('dialog', { name: "Confirm it's you" }).isVisible()).toBe(false);
    // The policy holds the director too: the next page they open is the set-up page.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('heading', { name: 'Set up two-step sign-in' }).waitFor();
    await saveScreenshot(page, 'enrolment-page-1280');
    await context.close();

    const staff = await live.browser.newContext({ viewport: { width: 390, height: 844 } });
    const staffPage = await staff.newPage();
    await staffPage.goto(live.app.url);
    await staffPage.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await staffPage.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
    await staffPage.getByRole('button', { name: 'Sign in', exact: true }).click();
    await staffPage.getByRole('heading', { name: 'Set up two-step sign-in' }).waitFor();
    // Only the set-up page: no inbox, no navigation to elsewhere.
    expect(await staffPage.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    expect(await staffPage.getByRole('button', { name: 'Continue to Firm Chat' }).count()).toBe(0);
    expect(await fitsWidth(staffPage)).toBe(true);
    await saveScreenshot(staffPage, 'enrolment-page-390');

    const panel = staffPage.getByRole('region', { name: 'Two-step sign-in' });
    await panel.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await panel.getByTestId('totp-secret').textContent())!.trim();
    await panel.getByRole('textbox', { name: 'Enter the 6-digit code the app shows' }).fill(await codeAt(secret));
    await panel.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await panel.getByRole('list', { name: 'Recovery codes' }).waitFor();
    await panel.getByRole('button', { name: 'I have saved them' }).click();
    await staffPage.getByRole('button', { name: 'Continue to Firm Chat' }).click();
    await staffPage.getByRole('heading', { name: 'Inbox' }).waitFor();
    await staff.close();
  });

  it('a wall change asks "Confirm it\'s you": Escape cancels, a wrong code is refused, the right one does the change', async () => {
    // The director sets up an app (whatever the policy: setting one up is never refused).
    const director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    const { secret, recoveryCodes } = await enrolTotp(director);
    const client = await director.clients.create.mutate({ name: 'Stella Stepwell', phone: '+447700911051' });
    const me = (await director.auth.me.query())!;

    const context = await live.browser.newContext({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(live.app.url);
    await page.getByRole('textbox', { name: 'Email' }).fill('director@demo.firm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-director-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('textbox', { name: 'Enter the 6-digit code from your authenticator app' }).fill(await codeAt(secret));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await ageProof('director@demo.firm');

    await page.goto(`${live.app.url}/clients/${client.id}`);
    const access = page.getByRole('region', { name: 'Who can see this client' });
    const addMember = access.getByRole('form', { name: 'Add a member' });
    await addMember.getByRole('combobox').selectOption({ value: String(me.id) });
    await addMember.getByRole('button', { name: 'Add' }).click();
    const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
    const code = dialog.getByRole('textbox', { name: 'Code from your authenticator app' });
    await code.waitFor();
    // A modal: focus is in it, and the page behind cannot be reached.
    expect(await code.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await page.evaluate(() => document.querySelector('dialog.step-up-dialog')?.matches(':modal'))).toBe(true);
    await page.keyboard.press('Escape');
    await addMember.getByText('Not done: you did not confirm it was you.').waitFor();
    expect(await dialog.count()).toBe(0);

    await addMember.getByRole('combobox').selectOption({ value: String(me.id) });
    await addMember.getByRole('button', { name: 'Add' }).click();
    await code.fill('000000');
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.getByText(/That code is not right|already been used/).waitFor();
    await saveScreenshot(page, 'step-up-dialog-1280', { fullPage: false });
    await code.fill(await codeAt(secret, new Date(), 1));
    await dialog.getByRole('button', { name: 'Confirm' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await access.getByRole('list', { name: 'Members' }).locator(`li[data-user-id="${me.id}"]`).waitFor();
    // Within the next 10 minutes the next wall change is not asked again.
    await access.getByRole('switch', { name: 'Restricted' }).click();
    await access.locator('[role="switch"][aria-checked="true"]').waitFor();
    const steps = await sql<{ method: string }>(
      live.ownerUrl,
      `SELECT detail->>'method' AS method FROM audit_events WHERE action = 'auth.step_up' ORDER BY id`,
    );
    expect(steps.map((s) => s.method)).toEqual(['totp']);

    // A restricted client's export asks too, answered here with a recovery code; then the file comes.
    await ageProof('director@demo.firm');
    await page.setViewportSize({ width: 390, height: 844 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      (async () => {
        await page.getByRole('button', { name: 'Export JSON' }).click();
        await dialog.getByRole('button', { name: 'Use a recovery code instead' }).click();
        await dialog.getByRole('textbox', { name: 'Recovery code' }).fill(recoveryCodes[0]!);
        expect(await fitsWidth(page)).toBe(true);
        await saveScreenshot(page, 'step-up-dialog-recovery-390', { fullPage: false });
        await dialog.getByRole('button', { name: 'Confirm' }).click();
      })(),
    ]);
    const shown = page.getByRole('textbox', { name: 'SHA-256 of the exported JSON' });
    await shown.waitFor();
    expect(await shown.inputValue()).toBe(
      createHash('sha256')
        .update(await readFile(await download.path()))
        .digest('hex'),
    );
    await context.close();
  });
});
