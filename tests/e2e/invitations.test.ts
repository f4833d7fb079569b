import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// A director invites someone in Settings › People; the person opens the link in their own browser,
// sets their password and lands signed in. Nobody but them ever knows it.
describe.runIf(hasChromium())('Invitations', () => {
  const live = useLiveBrowserSuite();

  it('a director invites in People; the link, opened elsewhere at 390 px, sets a password and signs the person in', async () => {
    const director = await signInDemo(live.browser, live.app.url, 'Director');
    await director.page.goto(`${live.app.url}/settings`);
    const people = director.page.getByRole('region', { name: 'People' });
    const form = people.getByRole('form', { name: 'Invite a person' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Ivy Invited');
    await form.getByRole('textbox', { name: 'Email' }).fill('ivy@demo.firm');
    await form.getByRole('button', { name: 'Invite' }).click();
    const notice = form.getByRole('status').filter({ hasText: 'Ivy Invited (ivy@demo.firm) is invited.' });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/It works once, until /);
    const link = await form.getByRole('textbox', { name: 'Invitation link' }).inputValue();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
    const pending = people.getByRole('list', { name: 'Pending invitations' });
    await pending.locator('li', { hasText: 'ivy@demo.firm' }).waitFor();
    expect(await director.page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await saveScreenshot(director.page, 'people-invite-1280');

    // Ivy, in a browser of her own, on a phone.
    const context = await live.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${live.app.url}${new URL(link).pathname}`);
    await page.getByRole('heading', { name: 'Set your password' }).waitFor();
    await page.getByText('Welcome, Ivy Invited.').waitFor();
    // Two different passwords: said, nothing sent.
    await page.getByLabel('New password', { exact: true }).fill('ivy-own-passphrase');
    await page.getByLabel('New password again').fill('ivy-own-passphras');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByText('The two passwords are not the same').waitFor();
    await page.getByLabel('New password again').fill('ivy-own-passphrase');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await saveScreenshot(page, 'invite-accept-390');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    // The link is spent; the director sees Ivy as an active member of staff, no longer pending.
    const again = await context.newPage();
    await again.goto(`${live.app.url}${new URL(link).pathname}`);
    await again.getByRole('alert').filter({ hasText: 'This invitation link cannot be used' }).waitFor();
    await director.page.reload();
    await people.locator('li[data-status="active"]', { hasText: 'ivy@demo.firm' }).waitFor();
    expect(await people.getByRole('list', { name: 'Pending invitations' }).count()).toBe(0);
    await context.close();
    await director.context.close();
  });
});
