import type { Dialog, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
const WIDTHS = [1280, 390] as const;

/** What this browser keeps for people: drafts (localStorage) and the outbox (IndexedDB). */
function keptInBrowser(page: Page): Promise<{ drafts: string[]; queued: number }> {
  return page.evaluate(async () => {
    const drafts = Object.keys(localStorage).filter((key) => key.startsWith('firm-chat:draft:'));
    const queued = await new Promise<number>((resolve, reject) => {
      const request = indexedDB.open('firm-chat');
      // Opened here first: made as the app makes it, so the app can still use it.
      request.onupgradeneeded = () => request.result.createObjectStore('outbox');
      request.onerror = () => reject(request.error ?? new Error('IndexedDB refused'));
      request.onsuccess = () => {
        const db = request.result;
        const count = db.transaction('outbox').objectStore('outbox').count();
        count.onsuccess = () => {
          db.close();
          resolve(count.result);
        };
        count.onerror = () => reject(count.error ?? new Error('count failed'));
      };
    });
    return { drafts, queued };
  });
}

describe.runIf(hasChromium())('the durable client, in Chromium: nothing sent offline or uploading is lost or sent twice', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [300, 600, 900], outOfOrderRate: 0 });

  const signIn = (width: number) => signInDemo(live.browser, live.app.url, 'Staff', { width, height: width < 500 ? 844 : 800 });
  const message = (page: Page) => page.locator('#composer-text');
  async function openThread(page: Page, name: RegExp): Promise<void> {
    await page.locator('[data-thread]', { hasText: name }).first().click();
    await message(page).waitFor();
  }
  /** How many times the provider was asked to send this text. */
  const providerSends = (text: string) =>
    live.sim.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/messages') && JSON.stringify(r.body).includes(text)).length;
  /** The next dialog the page raises, answered as `accept` says. */
  function nextDialog(page: Page, accept: boolean): Promise<Dialog> {
    return new Promise((resolve) =>
      page.once('dialog', (dialog) => {
        void (accept ? dialog.accept() : dialog.dismiss());
        resolve(dialog);
      }),
    );
  }

  for (const width of WIDTHS) {
    it(`${width} px: a message sent offline is kept with its clock, leaving asks first, and it goes once when the app opens again online`, async () => {
      const { page, context } = await signIn(width);
      await openThread(page, /Amelia Hart/);
      await context.setOffline(true);
      await page.getByRole('status').filter({ hasText: 'Offline — messages will send when the connection is back.' }).waitFor();
      const text = `Written in the tunnel at ${width} px (${Date.now()})`;
      await message(page).fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const bubble = page.locator('.bubble-row', { hasText: text });
      await bubble.getByRole('img', { name: 'Sending' }).waitFor();
      await expect.poll(async () => (await keptInBrowser(page)).queued).toBe(1);
      // The offline strip takes its own room: the conversation's header is not under it.
      const banner = (await page.locator('.offline-banner').boundingBox())!;
      const header = (await page.locator('.thread-header').boundingBox())!;
      expect(banner.y + banner.height).toBeLessThanOrEqual(header.y + 0.5);
      await saveScreenshot(page, `durable-offline-queued-${width}`);

      // Closing the tab with it unsent asks first; staying keeps everything.
      const asked = nextDialog(page, false);
      await page.close({ runBeforeUnload: true });
      expect((await asked).type()).toBe('beforeunload');
      expect(page.isClosed()).toBe(false);
      await bubble.getByRole('img', { name: 'Sending' }).waitFor();

      // The tab is closed for good while still offline: nothing was sent.
      await page.close();
      expect(providerSends(text)).toBe(0);
      await context.setOffline(false);
      const again = await context.newPage();
      await again.goto(live.app.url);
      await openThread(again, /Amelia Hart/);
      const sent = again.locator('.bubble-row', { hasText: text });
      await sent.getByRole('img', { name: /Sent|Delivered|Read/ }).waitFor();
      expect(providerSends(text)).toBe(1);
      await expect.poll(async () => (await keptInBrowser(again)).queued).toBe(0);
      // Read again from the server: one copy, never sent a second time.
      await again.reload();
      await again
        .locator('.bubble-row', { hasText: text })
        .getByRole('img', { name: /Delivered|Read/ })
        .waitFor();
      expect(await again.locator('.bubble-row', { hasText: text }).count()).toBe(1);
      expect(providerSends(text)).toBe(1);
      // Nothing unsent: the page closes without asking.
      let askedAgain = false;
      again.once('dialog', (dialog) => {
        askedAgain = true;
        void dialog.dismiss();
      });
      await again.close({ runBeforeUnload: true });
      await expect.poll(() => again.isClosed()).toBe(true);
      expect(askedAgain).toBe(false);
      await context.close();
    });
  }

  it('a send whose answer was lost when the tab died goes again on the next load and gets its first record back: sent once, not left to resend', async () => {
    const { page, context } = await signIn(1280);
    await openThread(page, /Amelia Hart/);
    const text = `Answer lost on the way back (${Date.now()})`;
    // The send the server takes reaches it; its answer never reaches the page.
    let reached!: () => void;
    const wentOut = new Promise<void>((resolve) => (reached = resolve));
    let lost = false;
    await page.route(
      (url) => url.pathname.startsWith('/trpc/') && url.pathname.includes('chat.send'),
      async (route) => {
        const response = await route.fetch();
        if (lost || !response.ok()) return route.fulfill({ response });
        lost = true;
        reached();
        await route.abort('connectionreset');
      },
    );
    await message(page).fill(text);
    await message(page).press('Enter');
    await wentOut;
    await page.close();

    const again = await context.newPage();
    await again.goto(live.app.url);
    await openThread(again, /Amelia Hart/);
    await again
      .locator('.bubble-row', { hasText: text })
      .getByRole('img', { name: /Sent|Delivered|Read/ })
      .waitFor();
    await expect.poll(async () => (await keptInBrowser(again)).queued).toBe(0);
    expect(await again.locator('.bubble-row', { hasText: text }).count()).toBe(1);
    expect(providerSends(text)).toBe(1);
    // Not offered for sending again either: the message box is empty.
    expect(await message(again).inputValue()).toBe('');
    await context.close();
  });

  for (const width of WIDTHS) {
    it(`${width} px: a reload in the middle of an upload keeps the caption with the file's name, "not sent: attach again", never as a text alone`, async () => {
      const { page, context } = await signIn(width);
      await openThread(page, /Amelia Hart/);
      // The upload never finishes: the connection is as slow as it gets.
      const uploads = (url: URL) => /^\/api\/(uploads|media)(\/|$)/.test(url.pathname);
      await page.route(uploads, () => undefined);
      await page.getByLabel('Attach a file').setInputFiles({ name: 'Signed lease.pdf', mimeType: 'application/pdf', buffer: PDF });
      const caption = `The signed lease, page 3 initialled (${width})`;
      await message(page).fill(caption);
      await page.getByRole('button', { name: 'Send file' }).click();
      await page.getByRole('progressbar', { name: 'Upload progress' }).waitFor();

      const asked = nextDialog(page, true);
      await page.reload();
      expect((await asked).type()).toBe('beforeunload');
      await message(page).waitFor();
      const lost = page.locator('.file-lost');
      await lost.getByText('not sent: attach again').waitFor();
      expect(await lost.textContent()).toContain('Signed lease.pdf');
      expect(await message(page).inputValue()).toBe(caption);
      // The caption cannot go out alone, by the button or by Enter.
      expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
      await message(page).press('Enter');
      expect(await page.locator('.bubble-row', { hasText: caption }).count()).toBe(0);
      await saveScreenshot(page, `durable-upload-cut-${width}`);

      // Attached again, it goes with its caption.
      await page.unroute(uploads);
      await page.getByLabel('Attach a file').setInputFiles({ name: 'Signed lease.pdf', mimeType: 'application/pdf', buffer: PDF });
      expect(await lost.count()).toBe(0);
      await page.getByRole('button', { name: 'Send file' }).click();
      const sent = page.locator('.bubble-row.out', { hasText: caption });
      await sent.getByText('Signed lease.pdf').first().waitFor();
      await sent.getByRole('img', { name: /Sent|Delivered|Read/ }).waitFor({ timeout: 20_000 });
      expect(await message(page).inputValue()).toBe('');
      await context.close();
    });
  }

  it('signing out deletes the drafts and the queued sends kept in the browser, after saying so', async () => {
    const { page, context } = await signIn(1280);
    await openThread(page, /Amelia Hart/);
    await message(page).fill('A draft that must not outlive the session');
    await openThread(page, /Priya Shah/);
    // The server cannot be reached for sends: this one stays queued.
    await page.route(
      (url) => url.pathname.startsWith('/trpc/') && url.pathname.includes('chat.send'),
      (route) => route.abort('internetdisconnected'),
    );
    const text = `Queued, then signed out (${Date.now()})`;
    await message(page).fill(text);
    await message(page).press('Enter');
    await page.locator('.bubble-row', { hasText: text }).getByRole('img', { name: 'Sending' }).waitFor();
    await expect.poll(async () => (await keptInBrowser(page)).queued).toBe(1);
    expect((await keptInBrowser(page)).drafts.length).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Sign out' }).click();
    const confirm = page.getByRole('group', { name: 'Sign out with unsent work' });
    await confirm.getByText('will be deleted from this browser').waitFor();
    await saveScreenshot(page, 'durable-sign-out-confirm');
    // Signing out ends by loading the page afresh: storage is read on the new page, not during the reload.
    await Promise.all([page.waitForEvent('load'), confirm.getByRole('button', { name: 'Delete and sign out' }).click()]);
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await keptInBrowser(page)).toEqual({ drafts: [], queued: 0 });

    // Signed in again, nothing comes back and nothing goes out.
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await openThread(page, /Amelia Hart/);
    expect(await message(page).inputValue()).toBe('');
    await openThread(page, /Priya Shah/);
    expect(await page.locator('.bubble-row', { hasText: text }).count()).toBe(0);
    expect(providerSends(text)).toBe(0);
    await context.close();
  });

  it('a session that ends (signed out elsewhere, expired) deletes the drafts and queued sends too', async () => {
    const { page, context } = await signIn(1280);
    await openThread(page, /Amelia Hart/);
    await message(page).fill('Typed before the session ended');
    await expect.poll(async () => (await keptInBrowser(page)).drafts.length).toBe(1);
    // The session is gone (as when it expires or is ended elsewhere): the server's next answer says so.
    await context.clearCookies();
    await page
      .locator('[data-thread]', { hasText: /Priya Shah/ })
      .first()
      .click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await expect.poll(() => keptInBrowser(page)).toEqual({ drafts: [], queued: 0 });
    await context.close();
  });
});
