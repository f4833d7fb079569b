import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// In the browser: what Settings tells a director about the webhook, and the
// People section (add, change a role, deactivate — the deactivated person's open page signs out).
describe.runIf(hasChromium())('Settings for a director: webhook setup and people', () => {
  const live = useLiveBrowserSuite();

  const openSettings = async (page: Page) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings · Chat' }).waitFor();
  };

  it('tells a director the header to register, what is configured, the site URL problem, and the last delivery: refused, then accepted', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await openSettings(page);
    const facts = page.locator('.webhook-facts');
    await facts.waitFor();
    expect(await facts.textContent()).toContain('x-service-webhook-secret');
    expect(await facts.textContent()).toContain('x-hub-signature-256');
    expect(await facts.locator('dd').nth(1).textContent()).toContain('Set (MESSAGING_WEBHOOK_SECRET)');
    expect(await facts.locator('dd').nth(2).textContent()).toContain('Not set');
    expect(await facts.locator('.last-delivery').textContent()).toContain('None received yet');
    // The app runs on its default site URL, http://localhost:<port>: the provider cannot reach it.
    const warning = page.getByRole('alert').filter({ hasText: 'The provider may not reach this address' });
    expect(await warning.textContent()).toMatch(/"localhost" is this computer/);
    expect(await warning.textContent()).toMatch(/only to https:\/\//);
    // Never a secret's value on the page.
    expect(await page.content()).not.toContain('e2e-webhook-secret');

    // A forged delivery, then a real one from the provider (the simulator signs with the secret).
    const forged = await fetch(`${live.app.url}/api/webhooks/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-webhook-secret': 'guess' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    await page.reload();
    await page.locator('.last-delivery[data-outcome="unauthorized"]').waitFor();
    expect(await page.locator('.last-delivery').textContent()).toContain('Refused: no valid secret or signature');
    expect(await facts.textContent()).toMatch(/Last accepted\s*Never/);

    await live.sim.sendInbound('447700900123', 'Checking the webhook from Settings', 'Amelia');
    await page.reload();
    await page.locator('.last-delivery[data-outcome="accepted"]').waitFor();
    const last = await page.locator('.last-delivery').textContent();
    expect(last).toContain('Accepted');
    expect(last).toContain('HTTP 200');
    expect(await page.locator('.last-delivery time').getAttribute('datetime')).toMatch(
      new RegExp(`^${new Date().toISOString().slice(0, 10)}`),
    );
    await context.close();
  });

  it('the test-send number suggested is no client’s number', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await openSettings(page);
    const suggested = await page.getByRole('textbox', { name: 'Number' }).getAttribute('placeholder');
    expect(suggested).toMatch(/\d/);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('searchbox', { name: 'Search clients' }).fill(suggested!);
    await page.getByText('No client matches that search.').waitFor();
    // The search does find a seeded client's number, so the empty answer above means something.
    await page.getByRole('searchbox', { name: 'Search clients' }).fill('+44 7700 900123');
    await page.getByRole('link', { name: /Amelia Hart/ }).waitFor();
    await context.close();
  });

  it('a director invites a person, changes their role, and deactivates them: their open page is signed out', async () => {
    const director = await signInDemo(live.browser, live.app.url, 'Director');
    const page = director.page;
    await openSettings(page);
    const people = page.getByRole('region', { name: 'People' });
    await people.getByRole('list', { name: 'People' }).waitFor();
    expect(await people.locator('li[data-status="active"]', { hasText: 'director@demo.firm' }).textContent()).toContain('You');

    // An email already in use: said next to the email field.
    const form = people.getByRole('form', { name: 'Invite a person' });
    await form.getByRole('textbox', { name: 'Name' }).fill('Nina New');
    await form.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await form.getByRole('button', { name: 'Invite' }).click();
    const emailField = form.getByRole('textbox', { name: 'Email' });
    await expect.poll(() => emailField.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await emailField.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toMatch(/already/);

    await emailField.fill('nina@demo.firm');
    await form.getByRole('button', { name: 'Invite' }).click();
    await form.getByRole('status').filter({ hasText: 'Nina New (nina@demo.firm) is invited.' }).waitFor();
    const link = await form.getByRole('textbox', { name: 'Invitation link' }).inputValue();

    // Nina sets her own password through the link, in a browser of her own, and is signed in: staff, so no People section for her.
    const ninaContext = await live.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const ninaSession = { context: ninaContext, page: await ninaContext.newPage() };
    await ninaSession.page.goto(`${live.app.url}${new URL(link).pathname}`);
    await ninaSession.page.getByLabel('New password', { exact: true }).fill('nina-first-pass');
    await ninaSession.page.getByLabel('New password again').fill('nina-first-pass');
    await ninaSession.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await ninaSession.page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.reload();
    const nina = people.locator('li', { hasText: 'nina@demo.firm' });
    await nina.waitFor();
    expect(await nina.getAttribute('data-status')).toBe('active');
    expect(await nina.getByRole('combobox', { name: 'Role of Nina New' }).inputValue()).toBe('staff');
    await openSettings(ninaSession.page);
    expect(await ninaSession.page.getByRole('region', { name: 'People' }).count()).toBe(0);
    expect(await ninaSession.page.locator('.webhook-facts').count()).toBe(0);

    // Made a director: her next request is a director's (her page shows it once it asks again).
    await nina.getByRole('combobox', { name: 'Role of Nina New' }).selectOption('director');
    await expect.poll(() => nina.getByRole('combobox', { name: 'Role of Nina New' }).inputValue()).toBe('director');
    await page.getByRole('status').filter({ hasText: 'Nina New is now a director.' }).waitFor();
    await ninaSession.page.reload();
    await ninaSession.page.getByRole('region', { name: 'People' }).waitFor();
    await ninaSession.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Inbox' }).click();
    await ninaSession.page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await liveStreamOpen(ninaSession.page); // her live stream, which her deactivation is to end

    // Deactivated: asked first, then her open page goes back to the sign-in page by itself.
    await nina.getByRole('button', { name: 'Deactivate Nina New' }).click();
    await nina.getByText('Deactivate Nina New? They are signed out at once.').waitFor();
    await nina.getByRole('button', { name: 'Deactivate', exact: true }).click();
    await people.locator('li[data-status="deactivated"]', { hasText: 'nina@demo.firm' }).waitFor();
    await ninaSession.page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 8_000 });
    await ninaSession.page.getByRole('status').filter({ hasText: 'Your session has ended' }).waitFor();

    // And she cannot sign back in.
    await ninaSession.page.getByRole('textbox', { name: 'Email' }).fill('nina@demo.firm');
    await ninaSession.page.getByRole('textbox', { name: 'Password' }).fill('nina-first-pass');
    await ninaSession.page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await ninaSession.page.getByText(/This account has been deactivated/).waitFor();
    await ninaSession.context.close();

    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(page, 'settings-director-1280');
    await director.context.close();

    const narrow = await signInDemo(live.browser, live.app.url, 'Director', { width: 390, height: 844 });
    await openSettings(narrow.page);
    await narrow.page.getByRole('region', { name: 'People' }).getByRole('list', { name: 'People' }).waitFor();
    await narrow.page.locator('.last-delivery[data-outcome]').waitFor();
    // Nothing wider than the screen.
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await narrow.page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(narrow.page, 'settings-director-390');
    await narrow.context.close();
  });

  it('staff see no People section and no webhook secrets status', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await openSettings(page);
    await page.getByRole('textbox', { name: 'Webhook URL' }).waitFor();
    expect(await page.getByRole('region', { name: 'People' }).count()).toBe(0);
    expect(await page.locator('.webhook-facts').count()).toBe(0);
    await context.close();
  });
});
