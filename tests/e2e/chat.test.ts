import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useLiveBrowserSuite } from '../support/live-app';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { readPdfText } from '../support/pdf-text';

describe.runIf(hasChromium())('chat in Chromium, live mode against the provider simulator', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [700, 1400, 3500], outOfOrderRate: 0, answerDelayMs: 600 });

  const signIn = (role: 'Director' | 'Staff', width = 1280) => signInDemo(live.browser, live.app.url, role, { width });

  it('staff send from a client file and watch the tick go pending → sent → delivered → read without reload', async () => {
    const { page, context } = await signIn('Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('link', { name: 'Message' }).click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();

    const text = `Your hearing bundle is ready (${Date.now()})`;
    // Every tick the bubble's status shows, as the page draws it: a poll from here could miss one
    // shown for a moment on a loaded machine.
    await page.evaluate((sent) => {
      const seen: string[] = [];
      Object.assign(window, { ticksSeen: seen });
      const note = () => {
        const row = [...document.querySelectorAll('.bubble-row')].find((r) => r.textContent?.includes(sent));
        const label = row?.querySelector('.ticks')?.getAttribute('aria-label');
        if (label && seen.at(-1) !== label) seen.push(label);
      };
      new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    }, text);
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const bubble = page.locator('.bubble-row', { hasText: text });
    await bubble.getByRole('img', { name: 'Sending' }).waitFor({ timeout: 2_000 });
    await bubble.getByRole('img', { name: 'Read' }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { ticksSeen: string[] }).ticksSeen)).toEqual([
      'Sending',
      'Sent',
      'Delivered',
      'Read',
    ]);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('');
    await saveScreenshot(page, 'thread');
    await context.close();
  });

  it('an inbound message appears in the open thread, and raises the unread count of another thread', async () => {
    const { page, context } = await signIn('Staff');
    await page
      .getByRole('link', { name: /Amelia Hart/ })
      .first()
      .click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    const benedict = page.locator('[data-thread]', { hasText: 'Benedict Okafor' });
    const unreadOf = async () =>
      (await benedict.locator('.unread-badge').count()) ? Number(await benedict.locator('.unread-badge').textContent()) : 0;
    const before = await unreadOf();
    await liveStreamOpen(page); // before the provider posts: what follows arrives live

    await live.sim.sendInbound('447700900123', 'Thank you, I will pick it up tomorrow.', 'Amelia');
    await page.locator('.bubble-row.in', { hasText: 'I will pick it up tomorrow' }).waitFor();

    await live.sim.sendInbound('447700900456', 'Here are my payslips.', 'Benedict');
    await expect.poll(unreadOf).toBe(before + 1);
    await saveScreenshot(page, 'inbox');
    await context.close();
  });

  it('a provider 400 shows the actionable error next to the message and in a toast, and Retry sends it', async () => {
    const { page, context } = await signIn('Staff');
    await page
      .getByRole('link', { name: /Amelia Hart/ })
      .first()
      .click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    live.sim.queueResponse({
      status: 400,
      shape: 'cloud',
      details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
    });
    const text = `Retry me (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: 'more than 24 hours have passed' }).first().waitFor();
    const failed = page.locator('.bubble-row[data-status="failed"]', { hasText: text });
    await failed.waitFor();
    expect(await failed.textContent()).toContain('more than 24 hours have passed');
    await saveScreenshot(page, 'thread-failed');
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.bubble-row[data-status]:not([data-status="failed"])', { hasText: text }).first().waitFor();
    expect(await page.locator('.bubble-row', { hasText: text }).count()).toBe(2); // the failed attempt stays
    await context.close();
  });

  it('a template fills its placeholders from the client, case and firm', async () => {
    const { page, context } = await signIn('Staff');
    await page
      .getByRole('link', { name: /Amelia Hart/ })
      .first()
      .click();
    await page
      .getByRole('combobox', { name: 'File on case' })
      .selectOption({ label: 'HART-2026-001 — Hart v Northwind Lettings (deposit dispute)' });
    await page.getByRole('combobox', { name: 'Firm wording' }).selectOption({ label: 'Appointment reminder' });
    await page.getByRole('button', { name: 'Insert wording' }).click();
    const body = await page.getByRole('textbox', { name: 'Message' }).inputValue();
    expect(body).toContain('Hello Amelia');
    expect(body).toContain('HART-2026-001');
    expect(body).toContain('Ashdown & Vale Solicitors');
    expect(body).not.toContain('{{');
    await context.close();
  });

  it('wording inserted for a number on no client’s file leaves the client’s name out, never taking the profile name for it', async () => {
    const { page, context } = await signIn('Staff');
    await liveStreamOpen(page);
    const stranger = '447700900877';
    await live.sim.sendInbound(stranger, 'Do you handle tenancy disputes?', 'Moonbeam');
    await page.locator(`[data-thread="phone-${stranger}"]`).click();
    await page.getByRole('combobox', { name: 'Firm wording' }).selectOption({ label: 'Please call us' });
    await page.getByRole('button', { name: 'Insert wording' }).click();
    const body = await page.getByRole('textbox', { name: 'Message' }).inputValue();
    expect(body).toMatch(/^Hello, could you please call Ashdown & Vale Solicitors/);
    expect(body).not.toContain('Moonbeam');
    await context.close();
  });

  it("a stranger linked to Benedict by mistake: the reply goes to the stranger's number, never Benedict's, and the link is undone in one click", async () => {
    const { page, context } = await signIn('Staff');
    await liveStreamOpen(page); // before the provider posts: what follows arrives live
    const stranger = '447700900888';
    await live.sim.sendInbound(stranger, 'I need advice about my divorce, urgently.', 'Sara Lind');
    await page.locator(`[data-thread="phone-${stranger}"]`).click();
    const benedictOption = page.locator('#link-client option', { hasText: 'Benedict Okafor' });
    await benedictOption.waitFor({ state: 'attached' });
    await page.getByRole('combobox', { name: 'Client' }).selectOption(await benedictOption.getAttribute('value'));
    await page.getByRole('button', { name: 'Link to client' }).click();

    // Benedict's conversation: the stranger's message, from its own number, and when it joined.
    await page.waitForURL(/\/inbox\/client\/\d+$/);
    const moved = page.locator('.bubble-row.in', { hasText: 'advice about my divorce' });
    await moved.waitFor();
    expect(await moved.locator('.bubble-number').textContent()).toMatch(/from ~Sara Lind \+44 7700 900888/);
    await page.locator('.thread-event', { hasText: 'added to Benedict Okafor by Sam Staff' }).waitFor();

    // The composer shows, and sends to, the number that wrote.
    const to = page.getByRole('combobox', { name: 'Send to number' });
    expect(await to.inputValue()).toBe(stranger);
    live.sim.requests.length = 0;
    const reply = `We can help with that; when can you talk? (${Date.now()})`;
    await page.getByRole('textbox', { name: 'Message' }).fill(reply);
    await page.getByRole('button', { name: 'Send' }).click();
    const sent = page.locator('.bubble-row.out', { hasText: reply });
    await sent.getByRole('img', { name: 'Delivered' }).waitFor();
    expect(await sent.locator('.bubble-number').textContent()).toMatch(/to \+44 7700 900888/);
    const recipients = live.sim.requests.filter((r) => r.path.endsWith('/messages')).map((r) => (r.body as { to: string }).to);
    expect(recipients).toEqual([stranger]);
    await saveScreenshot(page, 'thread-linked-number');

    // Undo: the number and its messages (the reply too) go back to an unlinked conversation.
    await page.getByRole('button', { name: 'Unlink this number' }).click();
    await page.getByRole('button', { name: 'Unlink', exact: true }).click();
    await page.waitForURL(new RegExp(`/inbox/phone/${stranger}$`));
    await page.locator('.bubble-row', { hasText: reply }).waitFor();
    await page.getByRole('button', { name: 'Create client from this number' }).waitFor();
    await context.close();
  });

  it('a client is created from an unknown number, named from its profile, and its messages are filed', async () => {
    const { page, context } = await signIn('Staff');
    await liveStreamOpen(page);
    await live.sim.sendInbound('447700900777', 'Hello, Tom here about the lease.', 'Tom Baker');
    await page.locator('[data-thread="phone-447700900777"]').click();
    await page.getByRole('button', { name: 'Create client from this number' }).click();
    const form = page.getByRole('form', { name: 'Create client from this number' });
    expect(await form.getByRole('textbox', { name: 'Name' }).inputValue()).toBe('Tom Baker');
    await form.getByRole('button', { name: 'Create client and link' }).click();
    await page.waitForURL(/\/inbox\/client\/\d+$/);
    await page.getByRole('heading', { name: 'Tom Baker' }).waitFor();
    await page.locator('.bubble-row.in', { hasText: 'Tom here about the lease' }).waitFor();
    await context.close();
  });

  it('a message that arrives while the inbox is still loading is listed once it has loaded', async () => {
    const { page, context } = await signIn('Staff');
    // The list's answer is read from the server at once but handed to the page only after the
    // message's live change has reached it: the answer predates the message.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(
      (url) => url.pathname.startsWith('/trpc/') && url.pathname.includes('inbox.threads'),
      async (route) => {
        const response = await route.fetch();
        await released;
        await route.fulfill({ response });
      },
    );
    await page.reload();
    await liveStreamOpen(page);
    // The page's stream, as Chromium hears it: the message's change has reached the page.
    const devtools = await context.newCDPSession(page);
    await devtools.send('Network.enable');
    const heard = new Promise<void>((resolve) =>
      devtools.on('Network.eventSourceMessageReceived', ({ data }) => {
        if (data.includes('447700900321')) resolve();
      }),
    );
    await live.sim.sendInbound('447700900321', 'Hello, are you open on Saturdays?', 'Rita Early');
    await heard;
    release();
    await page.locator('[data-thread="phone-447700900321"]').waitFor();
    await context.close();
  });

  it("a new client with another client's number gets a warning naming them; changing the number withdraws it", async () => {
    const { page, context } = await signIn('Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    const form = page.locator('form', { has: page.getByRole('heading', { name: 'New client' }) });
    await form.getByRole('textbox', { name: 'Name' }).fill('Hannah Hart');
    await form.getByRole('textbox', { name: 'Mobile number' }).fill('07700 900123');
    await form.getByRole('button', { name: 'Add client' }).click();
    await form.getByText(/already Amelia Hart's number/).waitFor();
    await saveScreenshot(page, 'client-number-warning');
    // The "anyway" belonged to Amelia's number: typing another one withdraws it.
    await form.getByRole('textbox', { name: 'Mobile number' }).fill('07700 900124');
    expect(await form.getByRole('button', { name: 'Add with this number anyway' }).count()).toBe(0);
    await form.getByRole('button', { name: 'Add client' }).click();
    await page.waitForURL(/\/clients\/\d+$/);
    await page.getByRole('heading', { name: 'Hannah Hart' }).waitFor();
    await context.close();
  });

  it('a cold client: the composer offers approved templates first; one is sent and read', async () => {
    live.sim.configure({ enforceWindow: true }); // the provider's 24-hour rule, as the real one applies it
    try {
      const { page, context } = await signIn('Staff');
      await page
        .getByRole('link', { name: /Chloe Martin/ })
        .first()
        .click();
      const form = page.getByRole('form', { name: 'Send an approved template' });
      await form.waitFor();
      await form.getByRole('combobox', { name: 'Approved template' }).selectOption({ label: 'Appointment reminder (en_GB)' });
      expect(await form.getByRole('textbox', { name: 'Value 1' }).inputValue()).toBe('Chloe');
      expect(await form.getByRole('textbox', { name: 'Value 2' }).inputValue()).toBe('Ashdown & Vale Solicitors');
      expect(await form.getByRole('button', { name: 'Send template' }).isDisabled()).toBe(true); // value 3 is empty
      await form.getByRole('textbox', { name: 'Value 3' }).fill('Tuesday 3 March at 10:00');
      expect(await form.getByLabel('Preview').textContent()).toBe(
        'Hello Chloe, this is a reminder of your appointment with Ashdown & Vale Solicitors on Tuesday 3 March at 10:00. Reply here to confirm or to rearrange.',
      );
      await saveScreenshot(page, 'composer-template');
      await form.getByRole('button', { name: 'Send template' }).click();
      const bubble = page.locator('.bubble-row.out', { hasText: 'on Tuesday 3 March at 10:00' });
      await bubble.getByRole('img', { name: 'Read' }).waitFor();
      await context.close();
    } finally {
      live.sim.configure({ enforceWindow: false });
    }
  });

  it('free text forced to a cold client fails with the 24-hour message, and a template sent from there is read', async () => {
    live.sim.configure({ enforceWindow: true });
    try {
      const { page, context } = await signIn('Staff');
      await page
        .getByRole('link', { name: /Chloe Martin/ })
        .first()
        .click();
      await page.getByRole('button', { name: 'Write free text anyway' }).click();
      await page
        .locator('.reply-window')
        .getByText(/Outside the 24-hour window: free text may be refused/)
        .waitFor();
      await saveScreenshot(page, 'composer-free-text-outside-window');
      const text = `Your completion date is confirmed (${Date.now()})`;
      await page.getByRole('textbox', { name: 'Message' }).fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const failed = page.locator('.bubble-row[data-status="failed"]', { hasText: text });
      await failed.getByText('More than 24 hours have passed since Chloe Martin last wrote: send an approved template.').waitFor();
      await failed.getByRole('button', { name: 'Send an approved template' }).click();
      const form = page.getByRole('form', { name: 'Send an approved template' });
      await form.getByRole('combobox', { name: 'Approved template' }).selectOption({ label: 'Hello world (en_US)' });
      await form.getByRole('button', { name: 'Send template' }).click();
      await page.locator('.bubble-row.out', { hasText: 'Hello World' }).last().getByRole('img', { name: 'Read' }).waitFor();
      await saveScreenshot(page, 'thread-window-failed-then-template');
      await context.close();
    } finally {
      live.sim.configure({ enforceWindow: false });
    }
  });

  it('a director sees the webhook URL, copies it, sends a test and checks the connection: Live', async () => {
    const { page, context } = await signIn('Director');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.app.url });
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const url = await page.getByRole('textbox', { name: 'Webhook URL' }).inputValue();
    expect(url).toMatch(/\/api\/webhooks\/chat$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);

    await page.getByRole('textbox', { name: 'Number' }).fill('+44 7700 900999');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page
      .locator('.test-result')
      .getByText(/Provider id/)
      .waitFor();

    await page.getByRole('button', { name: 'Check connection' }).click();
    const result = page.locator('.connection-result');
    await result.waitFor();
    expect(await result.textContent()).toContain('Live');
    expect(await result.textContent()).toContain('Verified name');
    await saveScreenshot(page, 'settings');
    await context.close();
  });

  it('staff see Check connection disabled with the reason', async () => {
    const { page, context } = await signIn('Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const button = page.getByRole('button', { name: 'Check connection' });
    expect(await button.isDisabled()).toBe(true);
    await page.getByText('Only directors can check the provider connection.').waitFor();
    await context.close();
  });

  it('a director reads the audit trail and filters it; staff have no Audit screen', async () => {
    const staff = await signIn('Staff');
    expect(await staff.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).count()).toBe(0);
    await staff.context.close();

    const { page, context } = await signIn('Director');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Audit' }).click();
    const table = page.getByRole('table');
    await table.locator('tr[data-action="auth.sign_in"]', { hasText: 'Diana Director' }).first().waitFor();
    await table.locator('tr[data-action="auth.sign_in"]', { hasText: 'Sam Staff' }).first().waitFor();
    await page.getByRole('combobox', { name: 'Action' }).selectOption({ label: 'Checked the provider connection' });
    await table.locator('tr[data-action="settings.check_connection"]').first().waitFor();
    await expect.poll(() => table.locator('tbody tr:not([data-action="settings.check_connection"])').count()).toBe(0);
    await saveScreenshot(page, 'audit');
    await context.close();
  });

  it('the inbox filters: unlinked numbers (kept in the address), then awaiting reply', async () => {
    const { page, context } = await signIn('Staff');
    const list = page.getByRole('list', { name: 'Conversations' });
    await page.getByRole('radio', { name: 'Unlinked' }).click();
    await expect.poll(() => list.locator('[data-thread^="client-"]').count()).toBe(0);
    await list.getByText('~Priya Shah').waitFor();
    // The filter is in the address: kept when a conversation is opened and after a reload.
    await list.getByText('~Priya Shah').click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    expect(new URL(page.url()).search).toBe('?filter=unlinked');
    await page.reload();
    expect(await page.getByRole('radio', { name: 'Unlinked' }).getAttribute('aria-checked')).toBe('true');
    await expect.poll(() => list.locator('[data-thread^="client-"]').count()).toBe(0);
    await page.getByRole('radio', { name: 'Awaiting reply' }).click();
    await list.getByText('Emily Novak').waitFor();
    await saveScreenshot(page, 'inbox-filter');
    await context.close();
  });

  it('staff search messages by their words and open a hit at that message', async () => {
    const { page, context } = await signIn('Staff');
    // The page's timers on a clock the test moves: the mark outlasting them is then shown, not waited for.
    await page.clock.install();
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('invoices');
    const results = page.getByRole('list', { name: 'Search results' });
    const hit = results.getByRole('link').filter({ hasText: 'last month' });
    await hit.waitFor();
    expect((await hit.locator('mark').allTextContents()).map((t) => t.toLowerCase())).toContain('invoice');
    await saveScreenshot(page, 'inbox-search');
    const id = await hit.getAttribute('data-hit');
    await hit.click();
    const bubble = page.locator(`.bubble-row[data-id="${id}"]`);
    await bubble.waitFor();
    await expect.poll(() => bubble.evaluate((el) => el.classList.contains('highlight'))).toBe(true);
    // Marked until the reader moves on, not for a moment: every timer due in the next 10 s has run.
    await page.clock.runFor(10_000);
    expect(await bubble.evaluate((el) => el.classList.contains('highlight'))).toBe(true);
    await page.locator('#conversation').click({ position: { x: 5, y: 5 } });
    await expect.poll(() => bubble.evaluate((el) => el.classList.contains('highlight'))).toBe(false);
    await context.close();
  });

  it('staff export a case as PDF: the file saved is the one whose SHA-256 is shown, and its text reads back', async () => {
    const { page, context } = await signIn('Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('link', { name: /HART-2026-001/ }).click();
    await page.getByRole('heading', { name: 'Export the chat' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export PDF' }).click()]);
    expect(download.suggestedFilename()).toMatch(
      /^Chat record - HART-2026-001 Hart v Northwind Lettings \(deposit dispute\) - \d{4}-\d\d-\d\d\.pdf$/,
    );
    const bytes = await readFile(await download.path());
    const shown = page.getByRole('textbox', { name: 'SHA-256 of the exported PDF' });
    await shown.waitFor();
    expect(await shown.inputValue()).toBe(createHash('sha256').update(bytes).digest('hex'));
    await page.getByText('checked against the file received').waitFor();
    expect(await shown.evaluate((el) => el === document.activeElement)).toBe(true); // focus moved on to it
    await saveScreenshot(page, 'case-export');
    const text = (await readPdfText(bytes)).text.replace(/\s+/g, ' ');
    expect(text).toContain('Chat record: case HART-2026-001');
    expect(text).toContain('Hart v Northwind Lettings (deposit dispute)');
    expect(text).toContain('Exported by: Sam Staff');
    expect(text).toContain('Not yet, Amelia. Their deadline is Friday; we will update you then.');
    expect(text).toContain('Hi, did the letting agent reply to the letter yet?');
    await context.close();
  });

  it('the inbox works at 360 px: list, then the thread with a way back', async () => {
    const { page, context } = await signIn('Staff', 360);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await saveScreenshot(page, 'inbox-mobile');
    await page
      .getByRole('link', { name: /Amelia Hart/ })
      .first()
      .click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await saveScreenshot(page, 'thread-mobile');
    await page.getByRole('link', { name: '← Inbox' }).click();
    await page.getByRole('list', { name: 'Conversations' }).waitFor();
    await context.close();
  });
});
