import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';
import { axeOn } from '../support/axe';

const WIDTHS = [1280, 390] as const;

/** axe's serious and critical findings on the page, by rule and target. */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await axeOn(page);
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id}: ${n.target.join(' ')}`));
}

/**
 * What in `row` is wider than it allows: an element whose content overflows it (but for text cut
 * short on purpose with an ellipsis), or one that reaches past the row's edges.
 */
async function overflowIn(row: Locator): Promise<string[]> {
  return row.evaluate((root) => {
    const edge = root.getBoundingClientRect();
    const name = (el: Element) => `${el.tagName.toLowerCase()}${[...el.classList].map((c) => `.${c}`).join('')}`;
    const found: string[] = [];
    for (const el of [root, ...root.querySelectorAll('*')]) {
      const style = getComputedStyle(el);
      const cutShort = style.textOverflow === 'ellipsis' && style.overflowX === 'hidden';
      if (!cutShort && el.scrollWidth > el.clientWidth) found.push(`${name(el)}: ${el.scrollWidth} px in ${el.clientWidth}`);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && (box.left < edge.left - 0.5 || box.right > edge.right + 0.5))
        found.push(
          `${name(el)} reaches ${Math.round(box.left)}–${Math.round(box.right)} px, the row ${Math.round(edge.left)}–${Math.round(edge.right)}`,
        );
    }
    return found;
  });
}

// The smaller frictions of a day at the inbox, each seen as a person meets it at a desk's width and a phone's.
describe.runIf(hasChromium())('small frictions at the inbox, in Chromium at 1280 and 390 px', () => {
  const live = useLiveBrowserSuite({ outOfOrderRate: 0 });
  let director: ReturnType<typeof createHttpClient>['client'];
  const clients = { chloe: 0, emily: 0 };

  beforeAll(async () => {
    director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    const all = await director.clients.list.query();
    clients.chloe = all.find((c) => c.name === 'Chloe Martin')!.id;
    clients.emily = all.find((c) => c.name === 'Emily Novak')!.id;
  });

  const signIn = (width: number, role: 'Staff' | 'Director' = 'Staff') =>
    signInDemo(live.browser, live.app.url, role, { width, height: width < 500 ? 844 : 800, bypassCSP: true });

  it('a snoozed conversation’s row holds its name, text, time, badge and snooze within the row', async () => {
    // Snoozed for a date far enough to be written out in full, with unread messages for a badge.
    const until = new Date(Date.now() + 40 * 86_400_000);
    await director.inbox.setState.mutate({ clientId: clients.chloe, state: 'snoozed', snoozeUntil: until });
    for (const width of WIDTHS) {
      const { page, context } = await signIn(width);
      await page.getByRole('radio', { name: 'Snoozed' }).click();
      const item = page.locator('li.thread-item', { has: page.locator(`a[data-thread="client-${clients.chloe}"]`) });
      await item.locator('.snoozed-mark').waitFor();
      await page.evaluate(() => document.fonts.ready);
      expect(await overflowIn(item), `the snoozed row at ${width} px`).toEqual([]);
      expect(await seriousViolations(page), `axe on the snoozed list at ${width} px`).toEqual([]);
      await saveScreenshot(page, `small-frictions-snoozed-${width}`);
      await context.close();
    }
  });

  it('the composer’s “Keep” box for the case reads whole beside the case, at both widths', async () => {
    for (const width of WIDTHS) {
      const { page, context } = await signIn(width);
      await page.goto(`${live.app.url}/inbox/client/${clients.emily}`);
      const casePicker = page.getByRole('combobox', { name: 'File on case' });
      await casePicker.waitFor();
      const firstCase = await casePicker.locator('option:not([value=""])').first().getAttribute('value');
      await casePicker.selectOption(firstCase);
      const keep = page.locator('label.case-pin');
      await keep.waitFor();
      await page.evaluate(() => document.fonts.ready);
      await saveScreenshot(page, `small-frictions-keep-case-${width}`, { fullPage: false });
      // Every part of the label on screen and inside the composer's tools, none of it cut off.
      expect(await overflowIn(keep), `the Keep label at ${width} px`).toEqual([]);
      const [box, tools, caseBox] = await Promise.all([
        keep.boundingBox(),
        page.locator('.composer-tools').boundingBox(),
        page.locator('label.case-field').boundingBox(),
      ]);
      expect(box!.x >= tools!.x && box!.x + box!.width <= tools!.x + tools!.width && box!.x + box!.width <= width).toBe(true);
      expect(await keep.evaluate((el) => el.checkVisibility() && el.textContent)).toBe('Keep');
      // It reads with the case it keeps: on the case's line, right after it (not first, before “To”).
      expect(Math.abs(box!.y + box!.height / 2 - (caseBox!.y + caseBox!.height / 2)), `at ${width} px`).toBeLessThan(caseBox!.height / 2);
      expect(box!.x, `at ${width} px`).toBeGreaterThan(caseBox!.x + caseBox!.width - 1);
      expect(await seriousViolations(page), `axe on the conversation at ${width} px`).toEqual([]);
      await context.close();
    }
  });

  it('after a failed send, a Retry that succeeds clears the failure’s notice', async () => {
    const { page, context } = await signIn(1280);
    await page.goto(`${live.app.url}/inbox/client/${clients.emily}`);
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await liveStreamOpen(page);
    // The provider refuses once, then sends.
    live.sim.queueResponse({ status: 400, shape: 'cloud', details: 'The recipient is temporarily unavailable.' });
    const text = `Second time lucky (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const failed = page.locator('.bubble-row[data-status="failed"]', { hasText: text });
    await failed.waitFor();
    await page.getByRole('alert').filter({ hasText: 'temporarily unavailable' }).first().waitFor();
    // An error's notice times out by itself 8 s after it shows: it must be gone well before then.
    const shownBy = Date.now();
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.bubble-row[data-status]:not([data-status="failed"])', { hasText: text }).first().waitFor();
    await failed.getByText('Resent').waitFor();
    // The live update may show "Resent" before the retry's own answer arrives (which takes the notice away).
    const toast = page.locator('.toast').filter({ hasText: 'temporarily unavailable' });
    await expect.poll(() => toast.count(), { timeout: Math.max(500, shownBy + 7_000 - Date.now()) }).toBe(0);
    // The failed attempt still says why it failed, beside it.
    await failed.getByText('The recipient is temporarily unavailable.').waitFor();
    await saveScreenshot(page, 'small-frictions-retry-1280', { fullPage: false });
    await context.close();
  });

  it('the `a` key assigns a conversation to me, and on my own says so and leaves it mine', async () => {
    await director.inbox.assign.mutate({ clientId: clients.emily, userId: null });
    const { page, context } = await signIn(1280);
    await page.goto(`${live.app.url}/inbox/client/${clients.emily}`);
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await liveStreamOpen(page);
    const assignee = async () => (await director.inbox.threadSummary.query({ clientId: clients.emily }))?.assignee?.name ?? null;
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('a');
    await page.getByRole('status').filter({ hasText: 'Assigned to you.' }).waitFor();
    await expect.poll(assignee).toBe('Sam Staff');
    // The page knows it is mine before the key is pressed again.
    await expect
      .poll(() =>
        page
          .getByRole('button', { name: /^Assignee/ })
          .first()
          .textContent(),
      )
      .not.toContain('Unassigned');
    // Again, on one's own: a word, and nothing undone.
    await page.keyboard.press('a');
    const said = page.getByRole('status').filter({ hasText: /Already assigned to you|Unassigned/ });
    await said.waitFor();
    expect(await said.textContent()).toContain('Already assigned to you.');
    expect(await assignee()).toBe('Sam Staff');
    await context.close();
  });
});
