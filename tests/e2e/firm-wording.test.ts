import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toZonedInputValue } from '../../shared/zoned-time';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';
import { axeOn } from '../support/axe';

// The firm's wording, edited by a director in Settings and inserted filled in by staff; a director's
// team view of scheduled messages, reached on a phone; the 24-hour warning while a time is chosen
// (server/wording/README.md "Firm wording", server/messaging/README.md "Scheduled sends").
describe.runIf(hasChromium())('firm wording and the team’s scheduled messages, in Chromium', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [200, 400, 600], outOfOrderRate: 0 });
  const contexts: BrowserContext[] = [];
  const stamp = Date.now();
  const title = `Greeting by name ${stamp}`;
  let amelia = 0;
  let staffName = '';

  beforeAll(async () => {
    const staff = createHttpClient(live.app.url).client;
    await staff.auth.signIn.mutate({ email: 'staff@demo.firm', password: 'demo-staff-pass' });
    amelia = (await staff.clients.list.query()).find((c) => c.name === 'Amelia Hart')!.id;
    const me = await staff.auth.me.query();
    staffName = me && 'name' in me ? me.name : '';
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  async function as(role: 'Director' | 'Staff', width = 1280): Promise<Page> {
    const { context, page } = await signInDemo(live.browser, live.app.url, role, {
      width,
      height: width > 600 ? 860 : 844,
      bypassCSP: true,
    });
    contexts.push(context);
    return page;
  }
  /** Serious and critical WCAG 2.1 AA violations inside `selector`. */
  async function serious(page: Page, selector: string): Promise<string[]> {
    const result = await axeOn(page, selector);
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  }

  it('a director adds wording with {{client.firstName}} in Settings, at 1280 and 390 px', async () => {
    for (const width of [390, 1280]) {
      const page = await as('Director', width);
      await page.goto(`${live.app.url}/settings`);
      const panel = page.getByRole('region', { name: 'Firm wording' });
      await panel.getByText('{{client.firstName}}').first().waitFor();
      expect(await serious(page, '.firm-wording')).toEqual([]);
      await saveScreenshot(panel, `firm-wording-${width}`);
      if (width !== 1280) continue;
      await panel.getByRole('button', { name: 'Add wording' }).click();
      const form = panel.getByRole('form', { name: 'New wording' });
      await form.getByRole('button', { name: 'Add wording' }).click();
      await form.getByText('Give it a title').first().waitFor();
      await form.getByLabel('Title').fill(title);
      await form.getByLabel('Wording').fill('Dear {{client.firstName}}, this is {{me.name}} at {{firm_name}}.');
      expect(await serious(page, '.firm-wording')).toEqual([]);
      await saveScreenshot(panel, 'firm-wording-form-1280');
      await form.getByRole('button', { name: 'Add wording' }).click();
      await panel.getByText(title, { exact: true }).waitFor();
    }
  });

  it('staff insert it filled in, and are warned of the 24-hour window while choosing a time, before scheduling', async () => {
    const page = await as('Staff');
    await page.goto(`${live.app.url}/inbox/client/${amelia}`);
    await liveStreamOpen(page);
    await page.getByRole('combobox', { name: 'Firm wording' }).selectOption({ label: title });
    await page.getByRole('button', { name: 'Insert wording' }).click();
    const text = await page.getByRole('textbox', { name: 'Message' }).inputValue();
    expect(text).toMatch(new RegExp(`^Dear Amelia, this is ${staffName} at \\S.+\\.$`));
    expect(text).not.toContain('{{');

    await page.getByRole('button', { name: 'Schedule for later' }).click();
    await page.getByRole('menuitem', { name: 'Pick a date and time…' }).click();
    const picker = page.getByRole('form', { name: 'Send later' });
    const warning = picker.getByText(/unless they write again before then, it will not be sent/);
    // Three days on is past any 24-hour window: said before Schedule is pressed.
    await picker.getByLabel('Send later at').fill(toZonedInputValue(new Date(Date.now() + 3 * 86_400_000), 'Europe/London'));
    await warning.waitFor();
    expect(await serious(page, '.composer')).toEqual([]);
    await saveScreenshot(page, 'firm-wording-window-warning-1280');
    await picker.getByRole('button', { name: 'Schedule' }).click();
    await picker.waitFor({ state: 'detached' });
  });

  it('at 390 px a director reaches Scheduled and sees everyone’s, with each author', async () => {
    for (const width of [390, 1280]) {
      const page = await as('Director', width);
      await page.getByRole('link', { name: 'Scheduled' }).click();
      await page.getByRole('heading', { name: 'Scheduled' }).waitFor();
      await page.getByRole('button', { name: 'Everyone’s' }).click();
      await page.getByRole('heading', { name: 'Scheduled by everyone' }).waitFor();
      await page
        .locator('.scheduled-item', { hasText: `by ${staffName}` })
        .first()
        .waitFor();
      expect(await serious(page, '.scheduled-page')).toEqual([]);
      await saveScreenshot(page, `scheduled-everyone-${width}`);
      // The top bar fits a phone with the Scheduled link in it: nothing scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    }
  });
});
