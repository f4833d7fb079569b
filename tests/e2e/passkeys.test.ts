import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signOut } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// Passkeys in a real browser: Chromium's virtual authenticator (DevTools protocol, WebAuthn domain)
// stands in for a device's screen lock. WebAuthn refuses an IP address as the RP id, so the app is
// opened at localhost, its default site URL.
describe.runIf(hasChromium())('Passkeys', () => {
  const live = useLiveBrowserSuite();

  it('enrols a passkey in Settings, signs out, and signs in with the passkey alone', async () => {
    const url = live.app.url.replace('127.0.0.1', 'localhost');
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await page.goto(url);
    await page.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    await page.goto(`${url}/settings`);
    const panel = page.getByRole('region', { name: 'Passkeys' });
    await panel.getByText('You have no passkeys yet.').waitFor();
    await panel.getByRole('textbox', { name: 'Name (optional)' }).fill('Office laptop');
    await panel.getByRole('button', { name: 'Add a passkey' }).click();
    const list = panel.getByRole('list', { name: 'Your passkeys' });
    await list.locator('li', { hasText: 'Office laptop' }).waitFor();
    expect(await list.locator('li').textContent()).toMatch(/not used yet/);
    // The device keeps it as a discoverable credential: signing in needs no email.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials.map((c) => [c.isResidentCredential, c.rpId])).toEqual([[true, 'localhost']]);
    await saveScreenshot(page, 'settings-passkeys-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await saveScreenshot(page, 'settings-passkeys-390');

    await signOut(page);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();

    // The new session says how it began, and the passkey when it was last used.
    await page.goto(`${url}/settings`);
    const current = page.getByRole('list', { name: 'Your sessions' }).locator('li[data-current="true"]');
    await current.filter({ hasText: 'with passkey' }).waitFor();
    await page
      .getByRole('region', { name: 'Passkeys' })
      .getByText(/last used/)
      .waitFor();
    await context.close();
  });

  it('says plainly when the device has no passkey for the site', async () => {
    const url = live.app.url.replace('127.0.0.1', 'localhost');
    const context = await live.browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    await page.goto(url);
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').filter({ hasText: 'No passkey was used' }).waitFor();
    await saveScreenshot(page, 'sign-in-passkey-none-390');
    await context.close();
  });
});
