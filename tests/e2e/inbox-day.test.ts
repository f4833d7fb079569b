import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo, untilStill } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// A day at the inbox: retries, what each bubble says, knowing something happened,
// loading and offline states, and the keyboard and screen-reader paths through a conversation.
describe.runIf(hasChromium())('a day at the inbox, in Chromium against the provider simulator', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [300, 600, 900], outOfOrderRate: 0 });

  const signIn = (options: { width?: number; height?: number } = {}) => signInDemo(live.browser, live.app.url, 'Staff', options);
  const open = async (page: Page, name: RegExp) => {
    await page.getByRole('link', { name }).first().click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
  };

  it('a retried message says "Resent" and links to the new copy; it cannot be sent twice', async () => {
    const { page, context } = await signIn();
    await open(page, /Amelia Hart/);
    live.sim.queueResponse({ status: 404 }); // a refusal (a 5xx would leave it of unknown outcome)
    const text = `Resend me once (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const failed = page.locator('.bubble-row[data-status="failed"]', { hasText: text });
    await failed.getByRole('button', { name: 'Retry' }).click();
    await failed.getByText('Resent').waitFor();
    expect(await failed.getByRole('button', { name: 'Retry' }).count()).toBe(0);
    const copy = page.locator('.bubble-row[data-status]:not([data-status="failed"])', { hasText: text });
    await copy.waitFor();
    expect(await page.locator('.bubble-row', { hasText: text }).count()).toBe(2);
    await failed.getByRole('button', { name: 'show the new copy' }).click();
    await expect
      .poll(() => copy.evaluate((el) => el.getBoundingClientRect().top > 0 && el.getBoundingClientRect().bottom <= window.innerHeight))
      .toBe(true);
    // After a reload too (from the server's record, not the page's memory).
    await page.reload();
    await page.locator('.bubble-row[data-status="failed"]', { hasText: text }).getByText('Resent').waitFor();
    await context.close();
  });

  it('a send whose answer was lost says it may not have been sent, and is resent only once confirmed', async () => {
    const { page, context } = await signIn();
    await open(page, /Amelia Hart/);
    // The provider never answers: after its timeout (5 s here, 10 s by default) the server keeps the record pending, outcome unknown.
    live.sim.queueResponse({ hang: true });
    const text = `Did this reach them? (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const unknown = page.locator('.bubble-row[data-outcome="unknown"]', { hasText: text });
    await unknown.waitFor({ timeout: 30_000 });
    await unknown.getByText(/May not have been sent — the provider.s answer was lost/).waitFor();
    // Neither a clock (still sending) nor a failure: a mark of its own.
    expect(await unknown.getByRole('img', { name: 'Sending' }).count()).toBe(0);
    await unknown.getByRole('img', { name: 'May not have been sent' }).waitFor();
    await saveScreenshot(page, 'thread-unknown-outcome');
    await unknown.getByRole('button', { name: 'Retry' }).click();
    await unknown.getByText('It may have reached them already. Send it again?').waitFor();
    await unknown.getByRole('button', { name: 'Keep' }).click();
    await unknown.getByRole('button', { name: 'Retry' }).waitFor();
    expect(await page.locator('.bubble-row', { hasText: text }).count()).toBe(1);
    // Confirmed: a new copy goes (chat.retry with confirm), once.
    await unknown.getByRole('button', { name: 'Retry' }).click();
    await unknown.getByRole('button', { name: 'Send again' }).click();
    await unknown.getByText('Resent').waitFor();
    await page
      .locator('.bubble-row:not([data-outcome])', { hasText: text })
      .getByRole('img', { name: /Sent|Delivered|Read/ })
      .waitFor();
    expect(await page.locator('.bubble-row', { hasText: text }).count()).toBe(2);
    // Opening a conversation with such messages interrupts no one: no alert per message.
    expect(await page.getByRole('list', { name: 'Messages' }).getByRole('alert').count()).toBe(0);
    await context.close();
  });

  it('each bubble names its case, and reads to a screen reader as who, when and how far it got', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await open(page, /Amelia Hart/);
    const reply = page.locator('.bubble-row', { hasText: 'Not yet, Amelia' });
    const filed = reply.getByRole('link', { name: /HART-2026-001/ });
    expect(await filed.textContent()).toContain('Hart v Northwind Lettings');
    expect(await filed.getAttribute('href')).toMatch(/^\/cases\/\d+$/);
    expect(await page.locator('.bubble-row', { hasText: 'Invoice INV-2041' }).getByRole('link', { name: /HART-/ }).count()).toBe(0);

    const spoken = (text: string) =>
      page.locator('.bubble-row', { hasText: text }).evaluate((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim());
    expect(await spoken('did the letting agent reply')).toMatch(/^Amelia Hart, [^:]*\d{1,2}:\d{2}( [AP]M)?: Hi, did the letting agent/);
    expect(await spoken('Not yet, Amelia')).toMatch(/^Sam Staff, .+, read: Not yet/);
    const text = `Spoken as mine (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('.bubble-row', { hasText: text }).getByRole('img', { name: 'Read' }).waitFor();
    expect(await spoken(text)).toMatch(/^You, .+, read: Spoken as mine/);

    // Receipt times open from the keyboard (a tooltip is hover only).
    const ticks = page.locator('.bubble-row', { hasText: text }).getByRole('button', { name: 'Read — receipt times' });
    await ticks.focus();
    await page.keyboard.press('Enter');
    expect(await ticks.getAttribute('aria-expanded')).toBe('true');
    const steps = page.locator('.bubble-row', { hasText: text }).getByRole('list', { name: 'Receipt times' });
    await steps.waitFor();
    expect(await steps.textContent()).toMatch(/Sent .*Delivered .*Read /);
    // The 24-hour countdown is not a live region.
    expect(await page.locator('.reply-window').getAttribute('role')).toBeNull();
    expect(await page.locator('.reply-window').getAttribute('aria-live')).toBeNull();
    await saveScreenshot(page, 'thread-receipt-times');
    await context.close();
  });

  it('the tab title counts unread messages, and unread conversations are bold', async () => {
    const { page, context } = await signIn();
    await liveStreamOpen(page); // before the provider posts: what follows arrives live
    const count = async () => Number(/^\((\d+)\) Firm Chat$/.exec(await page.title())?.[1] ?? 0);
    await expect.poll(count).toBeGreaterThan(0);
    const before = await count();
    await live.sim.sendInbound('447700900456', 'Sending the payslips tonight.', 'Benedict');
    await expect.poll(count).toBe(before + 1);
    const benedict = page.locator('[data-thread]', { hasText: 'Benedict Okafor' });
    expect(await benedict.getAttribute('class')).toContain('unread');
    expect(await benedict.locator('.thread-name').evaluate((el) => getComputedStyle(el).fontWeight)).toBe('700');
    const read = page.locator('[data-thread]:not(.unread)').first();
    expect(Number(await read.locator('.thread-name').evaluate((el) => getComputedStyle(el).fontWeight))).toBeLessThan(700);
    await benedict.click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await expect.poll(count).toBeLessThan(before + 1);
    await context.close();
  });

  it('while a conversation loads there is no warning and no composer; a failed load offers Retry', async () => {
    const { page, context } = await signIn();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Loads of this conversation fail while set: the app's own retry too, until Retry is offered.
    // (Aimed at its input, not counted: a load of another conversation must not use one up.)
    let failing: RegExp | null = null;
    await page.route(/\/trpc\/[^?]*inbox\.thread(?![a-zA-Z])/, async (route) => {
      if (failing?.test(decodeURIComponent(route.request().url()))) return route.abort();
      await held;
      return route.continue();
    });
    // Every other request the page made has been answered and drawn: what it shows now, it shows while the thread loads.
    const others = new Set<Request>();
    const isOther = (request: Request) => request.url().includes('/trpc/') && !/inbox\.(thread|onChange)(?![a-zA-Z])/.test(request.url());
    page.on('request', (request) => void (isOther(request) && others.add(request)));
    page.on('requestfinished', (request) => void others.delete(request));
    page.on('requestfailed', (request) => void others.delete(request));
    await page.getByRole('link', { name: /Emily/ }).first().click();
    await page.getByText('Loading conversation…').waitFor();
    await expect.poll(() => others.size).toBe(0);
    await untilStill(page.locator('main'));
    expect(await page.getByText('No message from this contact yet').count()).toBe(0);
    expect(await page.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    release();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();

    const amelia = page.getByRole('link', { name: /Amelia Hart/ }).first();
    const ameliaId = /\/inbox\/client\/(\d+)/.exec((await amelia.getAttribute('href')) ?? '')?.[1];
    expect(ameliaId).toBeTruthy();
    failing = new RegExp(`"clientId":${ameliaId}[,}]`);
    await amelia.click();
    // The conversation's own Retry: a list refreshed in the same aborted batch may offer one too.
    const retry = page.getByRole('region', { name: 'Conversation with Amelia Hart' }).getByRole('button', { name: 'Retry' });
    await retry.waitFor();
    failing = null;
    await retry.click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    // Whatever failed with it (the client's numbers, in the same batch) came back with the one Retry.
    await page.getByRole('heading', { name: 'Amelia Hart' }).waitFor();
    await context.close();
  });

  it('offline: a banner says so, and a message typed meanwhile is sent when the connection is back', async () => {
    const { page, context } = await signIn();
    await open(page, /Amelia Hart/);
    await context.setOffline(true);
    await page.getByRole('status').filter({ hasText: 'Offline — messages will send when the connection is back.' }).waitFor();
    const text = `Sent after the tunnel (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const bubble = page.locator('.bubble-row', { hasText: text });
    await bubble.getByRole('img', { name: 'Sending' }).waitFor();
    await saveScreenshot(page, 'offline-banner');
    // A second message queued after it is shown waiting too, and the first is still waiting, not failed.
    const second = `And this one (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(second);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await page.locator('.bubble-row', { hasText: second }).getByRole('img', { name: 'Sending' }).waitFor();
    expect(await bubble.getByRole('img', { name: 'Sending' }).count()).toBe(1);
    await context.setOffline(false);
    await bubble.getByRole('img', { name: /Sent|Delivered|Read/ }).waitFor();
    await page
      .locator('.bubble-row', { hasText: second })
      .getByRole('img', { name: /Sent|Delivered|Read/ })
      .waitFor();
    expect(await page.getByText('Offline — messages will send').count()).toBe(0);
    await context.close();
  });

  it('skip links and keyboard shortcuts: next and previous conversation, the message box, the help', async () => {
    const { page, context } = await signIn();
    await open(page, /Amelia Hart/);
    await page.reload(); // keyboard navigation from the top of the page
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to main content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to conversation');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('conversation');
    await page.getByRole('link', { name: 'Skip to message box' }).focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-text');

    // Shortcuts act only when no field has the focus: 'j' typed in the message box is a letter.
    await page.keyboard.type('j');
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('j');
    await page.getByRole('textbox', { name: 'Message' }).fill('');
    // Escape leaves the message box; then the keys act.
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).not.toBe('composer-text');
    await page.locator('#conversation').focus();
    const rows = await page.locator('[data-thread]').evaluateAll((els) => els.map((el) => el.getAttribute('href')));
    const at = rows.indexOf(new URL(page.url()).pathname);
    await page.keyboard.press('j');
    await expect.poll(() => new URL(page.url()).pathname).toBe(rows[at + 1]);
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await page.keyboard.press('k');
    await expect.poll(() => new URL(page.url()).pathname).toBe(rows[at]);
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await page.keyboard.press('c');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('composer-text');
    await page.locator('#conversation').focus();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor();
    expect(await help.textContent()).toContain('Next conversation');
    await saveScreenshot(page, 'shortcuts-help');
    await page.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden' });
    await context.close();
  });

  it("a test send to a client's number is marked as a test on that client's file and in the conversation", async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('textbox', { name: 'Number' }).fill('+44 7700 900123');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .locator('.test-result')
      .getByText(/Provider id/)
      .waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    const newest = page.getByRole('list', { name: 'Timeline' }).locator('.timeline-item').first();
    await newest.getByText('Test message', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Message' }).click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    await page.locator('.bubble-row.out').last().getByText('Test message', { exact: true }).waitFor();
    expect(
      await page
        .locator('.bubble-row')
        .filter({ has: page.getByText('Test message', { exact: true }) })
        .count(),
    ).toBe(1);
    await context.close();
  });

  it('the case chosen stays with the draft, and Message on a case page chooses that case', async () => {
    const { page, context } = await signIn();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('link', { name: /HART-2026-002/ }).click();
    await page.getByRole('link', { name: 'Message' }).click();
    const casePicker = page.getByRole('combobox', { name: 'File on case' });
    await expect.poll(async () => (await casePicker.locator('option:checked').textContent()) ?? '').toContain('HART-2026-002');
    await page.getByRole('textbox', { name: 'Message' }).fill('About the will, a draft');
    await open(page, /Emily Novak/);
    expect(await casePicker.count()).toBe(1);
    expect(await casePicker.locator('option:checked').textContent()).toBe('No case');
    await open(page, /Amelia Hart/);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('About the will, a draft');
    expect(await casePicker.locator('option:checked').textContent()).toContain('HART-2026-002');
    await page.reload();
    await casePicker.waitFor();
    await expect.poll(async () => (await casePicker.locator('option:checked').textContent()) ?? '').toContain('HART-2026-002');
    await context.close();
  });

  it('at 390 px the conversation, its case labels and its receipts fit the screen', async () => {
    const { page, context } = await signIn({ width: 390, height: 844 });
    await open(page, /Amelia Hart/);
    await page
      .locator('.bubble-row', { hasText: 'Not yet, Amelia' })
      .getByRole('link', { name: /HART-2026-001/ })
      .waitFor();
    await saveScreenshot(page, 'thread-390');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    // A search hit lands in view, above the composer, not under it.
    await page.getByRole('link', { name: '← Inbox' }).click();
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('letting agent');
    const hit = page.getByRole('list', { name: 'Search results' }).getByRole('link').first();
    const id = await hit.getAttribute('data-hit');
    await hit.click();
    const bubble = page.locator(`.bubble-row[data-id="${id}"]`);
    await expect.poll(() => bubble.evaluate((el) => el.classList.contains('highlight'))).toBe(true);
    await untilStill(bubble); // the smooth scroll has ended
    const box = await bubble.boundingBox();
    const composer = await page.locator('#composer-text').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y + box!.height).toBeLessThanOrEqual(Math.min(composer!.y, 844));
    await saveScreenshot(page, 'search-hit-390');
    await context.close();
  });
});
