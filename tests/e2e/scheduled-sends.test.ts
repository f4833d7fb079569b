import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, formatWallTime, toZonedInputValue, wallTimeIn } from '../../shared/zoned-time';
import { hasChromium, liveStreamOpen, saveScreenshot } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { match } from '../support/matchers';
import { createHttpClient } from '../support/test-server';
import { axeOn } from '../support/axe';

// Scheduled sends in Chromium (server/messaging/README.md "Scheduled sends"): a text is scheduled with Send later a few
// seconds ahead, listed above the composer, goes by itself as an ordinary bubble and leaves the
// list; another is edited and rescheduled, a third cancelled; the Scheduled page lists what waits;
// one that could not go (the client's 24 hours had passed) says why, in the list and in the bell.
// The browser runs on New York's clock while the firm's is London's (the default business-hours
// zone): times are picked and shown on the firm's clock, "UK time".
describe.runIf(hasChromium())('scheduled sends in Chromium', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [200, 400, 600], outOfOrderRate: 0 });
  const FIRM_ZONE = 'Europe/London';
  const contexts: BrowserContext[] = [];
  let amelia = 0;
  let chloe = 0;

  beforeAll(async () => {
    const director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    const all = await director.clients.list.query();
    amelia = all.find((c) => c.name === 'Amelia Hart')!.id;
    chloe = all.find((c) => c.name === 'Chloe Martin')!.id;
    expect((await director.settings.businessHours.query()).timeZone).toBe(FIRM_ZONE);
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  /** Demo staff, in a browser whose own clock is New York's; CSP bypassed so axe-core can be injected. */
  async function signIn(width = 1280): Promise<Page> {
    const context = await live.browser.newContext({
      viewport: { width, height: width > 600 ? 860 : 844 },
      timezoneId: 'America/New_York',
      bypassCSP: true,
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(live.app.url);
    await page.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await liveStreamOpen(page);
    return page;
  }
  const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });
  const strip = (page: Page) => page.getByRole('region', { name: 'Scheduled messages' });
  const itemWith = (scope: Page | Locator, text: string) => scope.locator('.scheduled-item', { hasText: text });
  /** The firm's wall-clock time `ms` from now, as the picker's input takes it (with seconds). */
  const firmInput = (ms: number) => {
    const at = new Date(Date.now() + ms);
    const w = wallTimeIn(at, FIRM_ZONE);
    return { at, value: `${toZonedInputValue(at, FIRM_ZONE)}:${String(w.second).padStart(2, '0')}` };
  };
  async function openConversation(page: Page, clientId: number): Promise<void> {
    await page.goto(`${live.app.url}/inbox/client/${clientId}`);
    await liveStreamOpen(page);
  }
  /** Send later › Pick a date and time…, the picker filled with `value`, Schedule. */
  async function scheduleAt(page: Page, value: string): Promise<void> {
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    await page.getByRole('menuitem', { name: 'Pick a date and time…' }).click();
    const picker = page.getByRole('form', { name: 'Send later' });
    await picker.getByLabel('Send later at').fill(value);
    await picker.getByRole('button', { name: 'Schedule' }).click();
    await picker.waitFor({ state: 'detached' });
  }
  async function violations(page: Page, selector: string): Promise<string[]> {
    const result = await axeOn(page, selector);
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }
  const providerTexts = (text: string) =>
    live.sim.requests.filter((r) => r.path.endsWith('/messages') && JSON.stringify(r.body).includes(text)).length;

  it('a text scheduled a few seconds ahead is listed, goes by itself as a bubble and leaves the list; others are edited, rescheduled and cancelled', async () => {
    const page = await signIn();
    await openConversation(page, amelia);
    const stamp = Date.now();
    const soon = `Your documents are ready to collect (${stamp})`;
    const later = `Reminder: the hearing bundle is due (${stamp})`;
    const dropped = `Please ignore this one (${stamp})`;

    // The menu names each preset's moment on the firm's clock, the zone said (the browser's is another).
    await message(page).fill(later);
    const menuButton = page.getByRole('button', { name: 'Schedule for later' });
    await menuButton.focus();
    await page.keyboard.press('ArrowDown');
    const menu = page.getByRole('menu', { name: 'Send later' });
    await menu.getByRole('menuitem').first().waitFor(); // once the firm's time zone is read
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual([
      match.stringMatching(/^In 1 hour.+UK time$/),
      match.stringMatching(/^Tomorrow 9:00.+, 09:00 UK time$/),
      ...(wallTimeIn(new Date(), FIRM_ZONE).weekday === 7 ? [] : [match.stringMatching(/^Monday 9:00Mon .+, 09:00 UK time$/)]),
      'Pick a date and time…',
    ]);
    await saveScreenshot(page, 'scheduled-menu-1280');
    // By keyboard: Tomorrow 9:00 (the second item), Enter.
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    const tomorrow = wallTimeIn(new Date(), FIRM_ZONE);
    const tomorrowAt = formatWallTime(
      new Date(Date.UTC(addDays(tomorrow, 1).year, addDays(tomorrow, 1).month - 1, addDays(tomorrow, 1).day, 9)),
      'UTC',
    );
    await page
      .getByRole('status')
      .filter({ hasText: `Scheduled for ${tomorrowAt} UK time.` })
      .waitFor();
    // Cleared as after a send: the box and the draft.
    expect(await message(page).inputValue()).toBe('');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('firm-chat:draft:')))).toEqual([]);

    await message(page).fill(dropped);
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    await page.getByRole('menuitem', { name: 'In 1 hour' }).click();
    await expect.poll(() => message(page).inputValue()).toBe('');

    // A time passed is refused in place; closing the picker after a refusal leaves the page whole.
    await message(page).fill(soon);
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    await page.getByRole('menuitem', { name: 'Pick a date and time…' }).click();
    const refusing = page.getByRole('form', { name: 'Send later' });
    await refusing.getByLabel('Send later at').fill(firmInput(-3_600_000).value);
    await refusing.getByRole('button', { name: 'Schedule' }).click();
    await refusing.getByRole('alert').waitFor();
    await page.keyboard.press('Escape');
    await refusing.waitFor({ state: 'detached' });
    expect(await message(page).inputValue()).toBe(soon);

    // Picked a few seconds ahead, in the firm's time (5 h ahead of the browser's).
    const { value } = firmInput(8_000);
    await scheduleAt(page, value);
    expect(await message(page).inputValue()).toBe('');

    const summary = strip(page).getByRole('button', { name: /scheduled/ });
    await expect.poll(() => summary.textContent()).toMatch(/^▸3 scheduled · next \d\d:\d\d UK time$/);
    await summary.click();
    expect(await summary.getAttribute('aria-expanded')).toBe('true');
    const list = strip(page).getByRole('list', { name: 'Scheduled in this conversation' });
    await itemWith(list, soon).waitFor();
    expect(await list.locator('.scheduled-item').allTextContents()).toEqual([
      match.stringContaining(soon),
      match.stringContaining(dropped),
      match.stringContaining(later),
    ]);
    expect(await itemWith(list, later).textContent()).toContain(`${tomorrowAt} UK time · by you`);
    await saveScreenshot(page, 'scheduled-strip-1280');
    expect(await violations(page, '.thread-compose')).toEqual([]);

    // Its time comes: an ordinary bubble (stored, then on its way to the client), and the list lets it go.
    await page.locator('.bubble-row.out:not([data-status="pending"])', { hasText: soon }).waitFor({ timeout: 30_000 });
    await itemWith(list, soon).waitFor({ state: 'detached' });
    await expect.poll(() => summary.textContent()).toMatch(/^▾2 scheduled · next /);
    expect(providerTexts(soon)).toBe(1);

    // Edit the text and reschedule it, on the firm's clock.
    const edited = `${later} — bring the originals`;
    await itemWith(list, later).getByRole('button', { name: 'Edit' }).click();
    const editBox = page.getByRole('form', { name: 'Edit the scheduled message' }).getByRole('textbox');
    await editBox.fill(edited);
    await page.getByRole('form', { name: 'Edit the scheduled message' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Scheduled message changed.' }).waitFor();
    await itemWith(list, edited).waitFor();

    const inThreeDays = addDays(wallTimeIn(new Date(), FIRM_ZONE), 3);
    const rescheduledTo = `${inThreeDays.year}-${String(inThreeDays.month).padStart(2, '0')}-${String(inThreeDays.day).padStart(2, '0')}T10:30`;
    const rescheduledLabel = formatWallTime(new Date(Date.UTC(inThreeDays.year, inThreeDays.month - 1, inThreeDays.day, 10, 30)), 'UTC');
    await itemWith(list, edited).getByRole('button', { name: 'Reschedule' }).click();
    const picker = page.getByRole('form', { name: 'Reschedule' });
    await picker.getByLabel('Reschedule at').fill(rescheduledTo);
    await picker.getByRole('button', { name: 'Reschedule' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Rescheduled for ${rescheduledLabel} UK time.` })
      .waitFor();
    await expect.poll(() => itemWith(list, edited).textContent()).toContain(`${rescheduledLabel} UK time`);

    // Cancel, asked first.
    await itemWith(list, dropped).getByRole('button', { name: 'Cancel' }).click();
    await itemWith(list, dropped).getByRole('button', { name: 'Cancel message' }).click();
    await itemWith(list, dropped).waitFor({ state: 'detached' });
    await expect.poll(() => summary.textContent()).toMatch(/^▾1 scheduled · next /);

    // The Scheduled page: what this person has waiting, with a link to its conversation.
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page.getByRole('heading', { name: 'Scheduled', level: 1 }).waitFor();
    const waiting = page.getByRole('region', { name: 'Waiting to send' });
    await itemWith(waiting, edited).waitFor();
    expect(await itemWith(waiting, edited).getByRole('link', { name: 'Amelia Hart' }).getAttribute('href')).toBe(`/inbox/client/${amelia}`);
    expect(await page.locator('.scheduled-item', { hasText: soon }).count()).toBe(0);
    expect(await page.locator('.scheduled-item', { hasText: dropped }).count()).toBe(0);
    await saveScreenshot(page, 'scheduled-page-1280');
    expect(await violations(page, 'main')).toEqual([]);
    expect(providerTexts(dropped)).toBe(0);
  });

  it('one that cannot go at its time (the 24 hours have passed) says why, in the list and in the bell', async () => {
    const page = await signIn();
    await openConversation(page, chloe);
    // Chloe has not written for days: free text, on purpose.
    await page.getByRole('button', { name: 'Write free text anyway' }).click();
    const text = `Are you free on Thursday? (${Date.now()})`;
    await message(page).fill(text);
    await scheduleAt(page, firmInput(6_000).value);
    // Scheduled all the same (she may write meanwhile), and told now that it will not go otherwise.
    await page
      .getByRole('status')
      .filter({
        hasText: /That is after Chloe Martin’s 24-hour window closes \(.+\): unless they write again before then, it will not be sent/,
      })
      .waitFor();

    const bell = page.getByRole('button', { name: /^Notifications/ });
    await expect.poll(() => bell.getAttribute('aria-label'), { timeout: 30_000 }).toMatch(/\(\d+ unread\)/);
    const summary = strip(page).getByRole('button', { name: /not sent/ });
    await expect.poll(() => summary.textContent()).toBe('▸1 not sent');
    await summary.click();
    const item = itemWith(strip(page), text);
    expect(await item.textContent()).toMatch(/Not sent: More than 24 hours have passed since Chloe Martin last wrote/);
    expect(providerTexts(text)).toBe(0);

    await bell.click();
    const told = page.getByRole('link', { name: /Your scheduled message to Chloe Martin was not sent: More than 24 hours/ });
    await told.waitFor();
    await saveScreenshot(page, 'scheduled-not-sent-1280');
    await bell.click();

    // Edit and send: the text goes back into the box, and the one not sent leaves the list.
    await item.getByRole('button', { name: 'Edit and send' }).click();
    expect(await message(page).inputValue()).toBe(text);
    await page.getByRole('status').filter({ hasText: 'The text is in the message box: edit it, then send it.' }).waitFor();
    await item.waitFor({ state: 'detached' });
    await message(page).fill('');
  });

  it('at 390 px the strip, its list and the Scheduled page fit the screen', async () => {
    const page = await signIn(390);
    await openConversation(page, amelia);
    await message(page).fill(`A long message to check the narrow layout: ${'the tenancy deposit was protected late, '.repeat(4)}`);
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    await page.getByRole('menuitem', { name: 'In 1 hour' }).click();
    const summary = strip(page).getByRole('button', { name: /scheduled/ });
    await expect.poll(() => summary.textContent()).toMatch(/^▸2 scheduled/);
    await summary.click();
    await strip(page).locator('.scheduled-item').nth(1).waitFor();
    await saveScreenshot(page, 'scheduled-strip-390');
    const noSideScroll = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    expect(await noSideScroll()).toBe(true);
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page.getByRole('heading', { name: 'Scheduled', level: 1 }).waitFor();
    await page.locator('.scheduled-item').nth(1).waitFor();
    await saveScreenshot(page, 'scheduled-page-390');
    expect(await noSideScroll()).toBe(true);
  });

  it('"Don’t send if they reply first": off by default, switched on in the menu and the picker, listed, and a reply stops it', async () => {
    const benedict = '447700900456';
    expect((await live.sim.sendInbound(benedict, 'Any news on my case?')).status).toBe(200);
    const director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    const benedictId = (await director.clients.list.query()).find((c) => c.name === 'Benedict Okafor')!.id;
    const page = await signIn();
    await openConversation(page, benedictId);
    const text = `Did the signed form reach you? (${Date.now()})`;
    await message(page).fill(text);

    // In the menu, a checkbox that leaves the menu open; the picker shows the same switch.
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    const option = page.getByRole('menuitemcheckbox', { name: 'Don’t send if they reply first' });
    expect(await option.getAttribute('aria-checked')).toBe('false');
    await option.click();
    expect(await option.getAttribute('aria-checked')).toBe('true');
    await page.getByRole('menuitem', { name: 'Pick a date and time…' }).click();
    const picker = page.getByRole('form', { name: 'Send later' });
    const box = picker.getByRole('checkbox', { name: 'Don’t send if they reply first' });
    expect(await box.isChecked()).toBe(true);
    expect(await violations(page, '.composer-later')).toEqual([]);
    await picker.getByLabel('Send later at').fill(firmInput(12_000).value);
    await picker.getByRole('button', { name: 'Schedule' }).click();
    await picker.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'It will not be sent if they reply first.' }).waitFor();

    await strip(page)
      .getByRole('button', { name: /scheduled/ })
      .click();
    const item = itemWith(strip(page), text);
    await expect.poll(() => item.textContent()).toContain('Won’t be sent if they reply first');

    // He writes before its time.
    expect((await live.sim.sendInbound(benedict, 'Yes, it arrived this morning.')).status).toBe(200);
    // Off again for the next one.
    await message(page).fill('Another message');
    await page.getByRole('button', { name: 'Schedule for later' }).click();
    expect(await option.getAttribute('aria-checked')).toBe('false');
    await page.keyboard.press('Escape');
    await message(page).fill('');

    await expect.poll(() => item.textContent(), { timeout: 40_000 }).toMatch(/Not sent: The client replied after it was scheduled\./);
    expect(providerTexts(text)).toBe(0);
  });
});
