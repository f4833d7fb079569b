import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';

// Several business numbers (server/numbers/README.md "Several numbers"): a director adds the Leeds
// office's number; a client who writes to it is answered from it, in the one conversation where each
// message names its number; the 24-hour window is the chosen number's. At 1280 and 390 px.
const LEEDS = '441134960222';
const LEEDS_KEY = 'e2e-leeds-provider-key';
const STRANGER = '447700900778';

describe.runIf(hasChromium())('several business numbers, in Chromium', () => {
  const live = useLiveBrowserSuite({ numbers: [{ apiKey: LEEDS_KEY, digits: LEEDS, phoneNumberId: 'LEEDS-ID' }] });
  const contexts: BrowserContext[] = [];
  let amelia = 0;

  beforeAll(async () => {
    const director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    await director.numbers.add.mutate({ phone: `+${LEEDS}`, label: 'Leeds office', apiKey: LEEDS_KEY, phoneNumberId: 'LEEDS-ID' });
    amelia = (await director.clients.list.query()).find((c) => c.name === 'Amelia Hart')!.id;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  async function asStaff(width: number): Promise<Page> {
    const { context, page } = await signInDemo(live.browser, live.app.url, 'Staff', { width, height: width > 600 ? 860 : 844 });
    contexts.push(context);
    return page;
  }

  it('shows each message’s number and answers from the one the client last wrote to, at 1280 and 390 px', async () => {
    for (const width of [1280, 390]) {
      const body = `Writing to Leeds at ${width}`;
      await live.sim.sendInbound('447700900123', body, undefined, LEEDS);
      const page = await asStaff(width);
      await page.goto(`${live.app.url}/inbox/client/${amelia}`);
      await liveStreamOpen(page);
      const bubble = page.locator('.bubble', { hasText: body });
      await expect.poll(() => bubble.getByTestId('firm-number').textContent()).toContain('to Leeds office');
      // An earlier message came through the main number: it says so.
      await expect.poll(() => page.getByTestId('firm-number').filter({ hasText: 'Main number' }).count()).toBeGreaterThan(0);
      const from = page.getByRole('combobox', { name: "Send from the firm's number" });
      expect(await from.locator('option:checked').textContent()).toBe('Leeds office');
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      await saveScreenshot(page, `firm-numbers-thread-${width}`, { fullPage: false });

      const reply = `Leeds answers at ${width}`;
      await page.getByRole('textbox', { name: 'Message' }).fill(reply);
      await page.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => live.sim.requests.filter((r) => r.path === '/messages' && JSON.stringify(r.body).includes(reply)).map((r) => r.apiKey))
        .toEqual([LEEDS_KEY]);
      await expect
        .poll(() => page.locator('.bubble', { hasText: reply }).getByTestId('firm-number').textContent())
        .toContain('from Leeds office');
    }
  });

  it('the window is the chosen number’s: a number that wrote only to Leeds has none on the main number', async () => {
    await live.sim.sendInbound(STRANGER, 'First time, to Leeds', undefined, LEEDS);
    const page = await asStaff(1280);
    await page.goto(`${live.app.url}/inbox/phone/${STRANGER}`);
    // At 1280 the inbox list beside the conversation previews the same words: wait for the bubble.
    await page.getByRole('list', { name: 'Messages' }).getByText('First time, to Leeds').waitFor();
    const notice = page.locator('.reply-window');
    await expect.poll(() => notice.textContent()).toContain('Reply window with Leeds office open');
    await page.getByRole('combobox', { name: "Send from the firm's number" }).selectOption({ label: 'Main number' });
    await expect.poll(() => notice.textContent()).toContain('No message from this contact to Main number yet');
    await saveScreenshot(page, 'firm-numbers-window-1280', { fullPage: false });
  });
});
