import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo, storedBubble } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// Filing messages on the right matter: the composer offers the case the conversation's recent
// messages are on, a case chosen by hand lasts for one message unless kept, and a client's timeline
// says each record's case and moves several to another case at once.

describe.runIf(hasChromium())('filing messages on cases, in Chromium', () => {
  const live = useLiveBrowserSuite();

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`the composer offers the recent messages' case, a choice lasts one message unless kept (${viewport.width} px)`, async () => {
      const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff', viewport);
      await page
        .getByRole('link', { name: /Amelia Hart/ })
        .first()
        .click();
      const casePicker = page.getByRole('combobox', { name: 'File on case' });
      const chosen = async () => (await casePicker.locator('option:checked').textContent()) ?? '';
      await expect.poll(chosen).toContain('HART-2026-001');
      // Said as offered, not chosen (beside the picker; on a phone to screen readers only).
      const described = () =>
        casePicker.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent ?? '');
      expect(await described()).toBe('as the last messages');
      await saveScreenshot(page, `filing-proposed-${viewport.width}`);

      // No case on purpose, for this message only.
      await casePicker.selectOption({ label: 'No case' });
      const message = page.getByRole('textbox', { name: 'Message' });
      await message.fill(`Not about a matter (${viewport.width})`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await storedBubble(page, `Not about a matter (${viewport.width})`);
      await expect.poll(chosen).toContain('HART-2026-001');

      // The will, kept for the next messages too.
      await casePicker.selectOption({ label: 'HART-2026-002 — Will and lasting power of attorney' });
      await page.getByRole('checkbox', { name: 'Keep for next messages' }).check();
      await message.fill(`About the will (${viewport.width})`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await storedBubble(page, `About the will (${viewport.width})`);
      expect(await chosen()).toContain('HART-2026-002');
      await page.getByRole('checkbox', { name: 'Keep for next messages' }).uncheck();

      // Back on the lease: the conversation's latest filed message is on HART-2026-001 again.
      await casePicker.selectOption({ label: 'HART-2026-001 — Hart v Northwind Lettings (deposit dispute)' });
      await message.fill(`Back to the lease (${viewport.width})`);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await storedBubble(page, `Back to the lease (${viewport.width})`);
      await expect.poll(chosen).toContain('HART-2026-001');
      await context.close();
    });
  }

  it("the client timeline says each record's case, and moves several to another case at once", async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff', { width: 1280, height: 900 });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    const lease = timeline.locator('.timeline-item', { has: page.locator('.case-tag', { hasText: 'HART-2026-001' }) });
    await lease.first().waitFor();
    const before = await lease.count();
    expect(before).toBeGreaterThanOrEqual(2);
    await lease.nth(0).getByRole('checkbox').check();
    await lease.nth(1).getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Move selected records' });
    await bar.getByText('2 records selected').waitFor();
    await bar.getByRole('combobox', { name: 'Move to' }).selectOption({ label: 'HART-2026-002 — Will and lasting power of attorney' });
    await saveScreenshot(page, 'filing-refile-1280');
    await bar.getByRole('button', { name: 'Move' }).click();
    await page.getByText('2 records moved to HART-2026-002.').waitFor();
    await expect.poll(() => lease.count()).toBe(before - 2);
    await context.close();
  });
});
