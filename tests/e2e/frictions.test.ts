import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

const AMELIA = '447700900123';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
const WIDTHS = [1280, 390] as const;
/** A lone half of a surrogate pair: a character cut in two. */
const BROKEN_CHARACTER = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type TBox = { x: number; y: number; width: number; height: number };
const overlaps = (a: TBox, b: TBox) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const boxOf = async (locator: Locator): Promise<TBox> => (await locator.boundingBox())!;

// Failures that were hidden or things that got in the way, each seen in the browser as a person
// would meet it, at a desktop's width and a phone's.
describe.runIf(hasChromium())('frictions that hid failures, in Chromium at 1280 and 390 px', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [300, 600, 900], outOfOrderRate: 0 });

  const signIn = (width: number, role: 'Staff' | 'Director' = 'Staff') =>
    signInDemo(live.browser, live.app.url, role, { width, height: width < 500 ? 844 : 800 });
  async function openThread(page: Page, name: RegExp | string): Promise<void> {
    await page.locator('[data-thread]', { hasText: name }).first().click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
  }

  it('search shows how many matches it shows, and more on asking', async () => {
    const word = `quokka${Date.now()}`;
    for (let i = 0; i < 36; i++) await live.sim.sendInbound(AMELIA, `Note ${i + 1} about the ${word} clause`, 'Amelia');
    for (const width of WIDTHS) {
      const { page, context } = await signIn(width);
      await page.getByRole('searchbox', { name: 'Search messages' }).fill(word);
      const results = page.getByRole('list', { name: 'Search results' });
      await page.getByRole('status').filter({ hasText: 'The best 30 matches shown' }).waitFor();
      expect(await results.getByRole('link').count()).toBe(30);
      await page.getByRole('button', { name: 'Show more' }).click();
      await page.getByRole('status').filter({ hasText: '36 matches, all shown' }).waitFor();
      expect(await results.getByRole('link').count()).toBe(36);
      expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
      await saveScreenshot(page, `frictions-search-more-${width}`);
      await context.close();
    }
  });

  it('a test send in Settings follows its receipts: a failure a moment later is shown with its reason', async () => {
    live.sim.configure({ autoReceipts: false });
    try {
      const { page, context } = await signIn(1280, 'Director');
      // The provider's catalogue answers late: until it does, "Send as" may yet become a template, so nothing goes.
      let answerCatalogue!: () => void;
      const catalogueHeld = new Promise<void>((resolve) => (answerCatalogue = resolve));
      await page.route(/\/trpc\/[^?]*chat\.providerTemplates/, async (route) => {
        await catalogueHeld;
        await route.continue();
      });
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('textbox', { name: 'Number' }).fill('+44 7700 900999');
      const sendTest = page.getByRole('button', { name: 'Send test' });
      await page.getByRole('option', { name: 'Looking up the approved templates…' }).waitFor({ state: 'attached' });
      expect(await sendTest.isDisabled()).toBe(true);
      answerCatalogue();
      await page.getByLabel('Preview').waitFor();
      await sendTest.click();
      const result = page.locator('.test-result');
      await result.getByText(/Provider id/).waitFor();
      expect(await result.getAttribute('data-status')).toBe('sent');
      const providerId = (await result.locator('code').textContent())!;
      await live.sim.postReceipt(providerId, 'failed', '447700900999', {
        code: 131026,
        title: 'Message undeliverable',
        details: 'The number cannot receive chat messages.',
      });
      await page.locator('.test-result[data-status="failed"]').waitFor();
      expect((await page.locator('.test-result').textContent())!.trim()).toMatch(/^Failed: .+/);
      await saveScreenshot(page, 'frictions-settings-test-failed');
      await context.close();
    } finally {
      live.sim.configure({ autoReceipts: true });
    }
  });

  it('a file whose download failed says why and that it will be tried again, not "Downloading…"', async () => {
    await live.sim.sendInboundKind({
      kind: 'document',
      from: AMELIA,
      name: 'Amelia',
      bytesBase64: PDF.toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'Damaged bundle.pdf',
      caption: 'The bundle, checksum off',
      sha256: 'ab'.repeat(32),
    });
    const { page, context } = await signIn(1280);
    await openThread(page, /Amelia Hart/);
    const bubble = page.locator('.bubble-row', { hasText: 'The bundle, checksum off' });
    await bubble.waitFor();
    // The first try fails at once; the next is half a minute away.
    await expect
      .poll(
        async () => {
          if (await bubble.locator('[data-state="retrying"]').count()) return 'retrying';
          await page.reload();
          await bubble.waitFor();
          return (await bubble.locator('[data-state="retrying"]').count()) ? 'retrying' : 'still downloading';
        },
        { timeout: 20_000, interval: 1_000 },
      )
      .toBe('retrying');
    const said = await bubble.locator('[data-state="retrying"]').textContent();
    expect(said).toContain('checksum');
    expect(said).toContain('It will be tried again');
    expect(said).not.toMatch(/Downloading Damaged bundle\.pdf…/);
    await saveScreenshot(page, 'frictions-download-retrying');
    await context.close();
  });

  it('390 px outside the 24-hour window: the history stays in view, the template form waits behind one line', async () => {
    const { page, context } = await signIn(390);
    await openThread(page, /Chloe Martin/);
    const history = page.getByRole('list', { name: 'Messages' });
    const open = page.getByRole('button', { name: 'Send a template…' });
    await open.waitFor();
    expect((await boxOf(page.locator('.messages'))).height).toBeGreaterThan(300);
    // The warning is said once, on one line above the composer.
    expect(await page.getByText(/24-hour window/).count()).toBe(1);
    await saveScreenshot(page, 'frictions-template-collapsed-390');
    await open.click();
    const form = page.getByRole('form', { name: 'Send an approved template' });
    await form.waitFor();
    // Open, the form scrolls within its part of the screen: the history keeps room of its own.
    expect((await boxOf(page.locator('.messages'))).height).toBeGreaterThan(150);
    await history.getByText('Searches are back and clear').waitFor();
    await form.getByRole('combobox', { name: 'Approved template' }).selectOption({ label: 'Hello world (en_US)' });
    await form.getByRole('button', { name: 'Send template' }).scrollIntoViewIfNeeded();
    await saveScreenshot(page, 'frictions-template-open-390');
    await page.getByRole('button', { name: 'Hide the template form' }).click();
    await open.waitFor();
    await context.close();
  });

  it('1280 × 800: the composer is one line of window, one of tools and the text box; the warning is said once', async () => {
    const { page, context } = await signIn(1280);
    await openThread(page, /Chloe Martin/);
    await page.getByRole('button', { name: 'Write free text anyway' }).click();
    await page.locator('#composer-text').waitFor();
    expect(await page.getByText(/24-hour window/).count()).toBe(1);
    const window = await boxOf(page.locator('.reply-window'));
    const composer = await boxOf(page.locator('.composer'));
    expect(composer.y + composer.height - window.y).toBeLessThan(170);
    await saveScreenshot(page, 'frictions-composer-1280');
    await context.close();
  });

  it('inbox previews end in "…" on a whole character', async () => {
    const body = `${'Thanks for the documents 👍🏽 — '.repeat(5)}and the 🇬🇧 forms, all signed.`;
    await live.sim.sendInbound('447700900321', body, 'Nadia Ferreira');
    for (const width of WIDTHS) {
      const { page, context } = await signIn(width);
      const preview = page.locator('[data-thread]', { hasText: 'Nadia Ferreira' }).locator('.preview-text');
      await preview.waitFor();
      const text = (await preview.textContent())!;
      expect(text.endsWith('…')).toBe(true);
      expect(text).not.toMatch(BROKEN_CHARACTER);
      expect(body.startsWith(text.slice(0, -1).trimEnd())).toBe(true);
      // Wider than the row: the row ends it with "…" as well, never mid-letter.
      expect(await preview.evaluate((el) => getComputedStyle(el).textOverflow)).toBe('ellipsis');
      await context.close();
    }
  });

  it('a number with no name is said once in its conversation header', async () => {
    const digits = '447700900444';
    await live.sim.sendInbound(digits, 'Who do I speak to about a lease?', '');
    const { page, context } = await signIn(390);
    await openThread(page, 'Who do I speak to about a lease?');
    const header = page.locator('.thread-header');
    await header.getByRole('heading', { name: '+44 7700 900444' }).waitFor();
    expect(((await header.textContent())!.match(/7700 900444/g) ?? []).length).toBe(1);
    await saveScreenshot(page, 'frictions-unknown-number-header-390');
    await context.close();
  });

  for (const width of WIDTHS) {
    it(`${width} px: the case form's example names no client, the fingerprint shows whole, and a notice covers neither Message nor the message box`, async () => {
      const { page, context } = await signIn(width);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
      await page.getByRole('link', { name: /Amelia Hart/ }).click();
      const reference = page.getByRole('form', { name: 'Open a case' }).getByRole('textbox', { name: 'Reference' });
      expect(await reference.getAttribute('placeholder')).not.toMatch(/HART|OKAF/);

      await page.getByRole('button', { name: 'Export JSON' }).click();
      const fingerprint = page.getByRole('textbox', { name: 'SHA-256 of the exported JSON' });
      await fingerprint.waitFor();
      expect(await fingerprint.inputValue()).toMatch(/^[0-9a-f]{64}$/);
      // All 64 characters in view, wrapped: nothing scrolled out of the box.
      expect(await fingerprint.evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1)).toBe(true);
      // Copy refused (as a browser without clipboard permission does): the notice says so, over nothing.
      await page.evaluate(() => {
        navigator.clipboard.writeText = () => Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError'));
      });
      await page.getByRole('button', { name: 'Copy' }).click();
      const toast = page.getByRole('alert').filter({ hasText: 'Copy is not allowed here' });
      await toast.waitFor();
      const messageLink = page.getByRole('link', { name: 'Message', exact: true });
      await messageLink.scrollIntoViewIfNeeded();
      expect(overlaps(await boxOf(toast), await boxOf(messageLink))).toBe(false);
      await saveScreenshot(page, `frictions-client-page-${width}`);

      // A send the provider refuses: the notice stays off the message box and its button.
      await messageLink.click();
      await page.locator('#composer-text').waitFor();
      live.sim.queueResponse({ status: 429, onlySends: true });
      const text = `Refused by the provider (${width}, ${Date.now()})`;
      await page.locator('#composer-text').fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const refused = page.getByRole('alert').filter({ hasText: 'rate-limiting' });
      await refused.waitFor();
      const box = await boxOf(refused);
      expect(overlaps(box, await boxOf(page.locator('#composer-text')))).toBe(false);
      expect(overlaps(box, await boxOf(page.getByRole('button', { name: 'Send', exact: true })))).toBe(false);
      await saveScreenshot(page, `frictions-toast-${width}`);
      await context.close();
    });
  }
});
