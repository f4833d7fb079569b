import type { BrowserContext, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { match } from '../support/matchers';

// Reach in the browser, against the built app and the provider simulator: the firm's reactions
// (optimistic, rolled back on a refusal), a question with buttons and the client's press, business
// hours and their automatic reply, and a template that starts with a document — each looked at in
// Chromium at 1280 and 390 px wide.

const AMELIA = '447700900123';
const BENEDICT = '447700900456';

/** A tiny but real PDF, for a template's document header. */
const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj 3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
);
/** The first bytes of a JPEG: enough for the browser to call it a photo. */
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);

/** The message a field points to with aria-describedby while it is marked invalid ('' when it is not). */
function errorOf(field: Locator): Promise<string> {
  return field.evaluate((input) => {
    if (input.getAttribute('aria-invalid') !== 'true') return '';
    const ids = (input.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids
      .map((id) => (document.getElementById(id)?.className.includes('field-error') ? document.getElementById(id)?.textContent : ''))
      .join('');
  });
}

/** Today's date in the firm's time zone (the demo firm's is Europe/London), as YYYY-MM-DD. */
function todayInLondon(): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/London', year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
}

describe.runIf(hasChromium())('reach, in Chromium: reactions, buttons, business hours and their reply, template headers', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [200, 400, 600], outOfOrderRate: 0 });

  async function openThread(page: Page, name: RegExp): Promise<void> {
    await page.locator('[data-thread]', { hasText: name }).first().click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  }
  const bubble = (page: Page, text: string) => page.locator('.bubble-row', { hasText: text }).last();
  const openSettings = async (page: Page) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Business hours' }).waitFor();
  };
  /** The provider calls of one type made since `from` (an index into the simulator's requests). */
  const sendsOf = (type: string, from = 0) =>
    live.sim.requests.slice(from).filter((r) => r.path === '/messages' && (r.body as { type?: string } | null)?.type === type);

  /**
   * Screenshots of what is on screen now at 1280 px, then of the same address on a phone: 390 px
   * wide, touch, signed in as the same person.
   */
  async function lookAt(page: Page, context: BrowserContext, name: string, prepare: (phone: Page) => Promise<void>): Promise<void> {
    await saveScreenshot(page, `reach-${name}-1280`);
    const phoneContext = await live.browser.newContext({
      storageState: await context.storageState(),
      viewport: { width: 390, height: 844 },
      hasTouch: true,
      isMobile: true,
    });
    const phone = await phoneContext.newPage();
    await phone.goto(page.url());
    await prepare(phone);
    await saveScreenshot(phone, `reach-${name}-390`);
    await phoneContext.close();
  }

  it('a reaction from the firm shows at once and reaches the client; it can be removed by keyboard; refused, it goes back with the reason', async () => {
    const asked = await live.sim.sendInbound(AMELIA, 'Could we talk about the deposit this week?', 'Amelia Hart');
    expect(asked.status).toBe(200);
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await liveStreamOpen(page);
    await openThread(page, /Amelia Hart/);
    const row = bubble(page, 'Could we talk about the deposit this week?');
    await row.waitFor();

    // The firm's own messages are never offered a reaction.
    expect(await page.locator('.bubble-row.out .react-button').count()).toBe(0);

    const react = row.getByRole('button', { name: 'React to Amelia Hart’s message' });
    await row.hover();
    await react.click();
    const menu = page.getByRole('menu', { name: 'Reactions' });
    expect(await menu.getByRole('menuitem').allTextContents()).toEqual(['👍', '❤️', '😂', '😮', '😢', '🙏']);
    await saveScreenshot(page, 'reach-reaction-picker-1280');
    const before = live.sim.requests.length;
    await menu.getByRole('menuitem', { name: '👍' }).click();
    const firmChip = row.locator('.reaction-chips li[data-from="firm"]');
    await expect.poll(() => firmChip.textContent()).toContain('👍');
    expect(await firmChip.getAttribute('title')).toMatch(/^👍 from you/);
    // The client's phone got it: a reaction to that very message.
    await expect.poll(() => sendsOf('reaction', before).length).toBe(1);
    const sent = sendsOf('reaction', before)[0]!.body as { to: string; reaction: { message_id: string; emoji: string } };
    expect(sent).toMatchObject({ to: AMELIA, reaction: { message_id: asked.id, emoji: '👍' } });
    // Stored: after a reload it is still there.
    await page.reload();
    await expect.poll(() => firmChip.textContent()).toContain('👍');
    await lookAt(page, context, 'reaction', async (phone) => {
      const phoneRow = phone.locator('.bubble-row', { hasText: 'Could we talk about the deposit' });
      await phoneRow.locator('.reaction-chips li[data-from="firm"]').waitFor();
      // Nothing hovers on a touch screen: there the React button is always shown.
      const button = phoneRow.getByRole('button', { name: 'React to Amelia Hart’s message' });
      await expect.poll(() => button.evaluate((b) => getComputedStyle(b).opacity)).toBe('1');
    });

    expect(live.sim.message(asked.id)?.reaction?.emoji).toBe('👍');

    // Removed, by keyboard this time (the button is reached and the menu worked with keys alone):
    // gone here, and the client's phone was told (an empty reaction).
    const beforeRemove = live.sim.requests.length;
    await page.mouse.move(0, 0);
    await react.focus();
    await page.keyboard.press('Enter');
    const focused = () => page.evaluate(() => document.activeElement?.querySelector('.menu-label')?.textContent);
    await expect.poll(focused).toBe('👍'); // it opens on the current one, marked
    expect(await menu.getByRole('menuitem', { name: '👍' }).getAttribute('aria-current')).toBe('true');
    await page.keyboard.press('End');
    await expect.poll(focused).toBe('Remove');
    await page.keyboard.press('Enter');
    await expect.poll(() => firmChip.count()).toBe(0);
    await expect.poll(() => sendsOf('reaction', beforeRemove).length).toBe(1);
    expect(sendsOf('reaction', beforeRemove)[0]!.body).toMatchObject({ reaction: { message_id: asked.id, emoji: '' } });
    expect(live.sim.message(asked.id)?.reaction).toBeNull();

    // 🙏, then the provider no longer takes reactions to it (older than 30 days by its clock):
    // ❤️ shows at once, then goes back to 🙏, with the server's reason.
    await row.hover();
    await react.click();
    await menu.getByRole('menuitem', { name: '🙏' }).click();
    await expect.poll(() => live.sim.message(asked.id)?.reaction?.emoji).toBe('🙏');
    expect(live.sim.ageMessage(asked.id, 31)).toBe(true);
    await row.hover();
    await react.click();
    await menu.getByRole('menuitem', { name: '❤️' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'The provider only takes reactions to messages from the last 30 days' })
      .first()
      .waitFor();
    await expect.poll(() => firmChip.textContent()).toContain('🙏');
    expect(await firmChip.textContent()).not.toContain('❤️');
    expect(live.sim.message(asked.id)?.reaction?.emoji).toBe('🙏');
    await context.close();
  });

  it('a question with buttons shows its buttons; a title too long is refused by its field; the client’s press comes back as “Chose: …” linked to the question', async () => {
    await live.sim.sendInbound(AMELIA, 'Please let me know about a call.', 'Amelia Hart');
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await liveStreamOpen(page);
    await openThread(page, /Amelia Hart/);
    await page.getByRole('button', { name: 'Buttons…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Ask with buttons' });
    await dialog.getByRole('textbox', { name: 'Question' }).fill('Shall we call you tomorrow morning?');
    await dialog.getByRole('textbox', { name: 'Button 1' }).fill('Yes, tomorrow morning!');
    await dialog.getByRole('textbox', { name: 'Button 2' }).fill('No, thank you');
    expect(await dialog.locator('.title-count.over').textContent()).toBe('22/20');
    // Counted as the client sees it: a family joined by zero-width joiners is one character.
    await dialog.getByRole('textbox', { name: 'Button 3' }).fill('Family 👨\u200D👩\u200D👧');
    expect(await dialog.locator('.title-count').nth(2).textContent()).toBe('8/20');
    await dialog.getByRole('textbox', { name: 'Button 3' }).fill('');
    const before = live.sim.requests.length;
    await dialog.getByRole('button', { name: 'Send question' }).click();
    await expect.poll(() => errorOf(dialog.locator('fieldset.button-titles'))).toMatch(/at most 20 characters/);
    expect(sendsOf('interactive', before)).toHaveLength(0);

    await dialog.getByRole('textbox', { name: 'Button 1' }).fill('Yes, call me');
    await dialog.getByRole('button', { name: 'Send question' }).click();
    await dialog.waitFor({ state: 'detached' });
    const question = bubble(page, 'Shall we call you tomorrow morning?');
    await question.waitFor();
    expect(await question.locator('.question-buttons button').allTextContents()).toEqual(['Yes, call me', 'No, thank you']);
    expect(await question.locator('.question-buttons button').first().isDisabled()).toBe(true);
    await expect.poll(() => sendsOf('interactive', before).length).toBe(1);
    expect(sendsOf('interactive', before)[0]!.body).toMatchObject({
      to: AMELIA,
      interactive: { type: 'button', action: { buttons: [{ reply: { id: 'b1', title: 'Yes, call me' } }, { reply: { id: 'b2' } }] } },
    });
    // The client presses "Yes, call me" on their phone (the simulator's control API, as a tool in
    // another process would): the question as the simulator delivered it, with its buttons.
    const delivered = (await (await fetch(`${live.sim.url}/__sim/messages`)).json()) as {
      id: string;
      direction: string;
      peer: string;
      buttons?: { id: string; title: string }[];
    }[];
    const asked = delivered.filter((m) => m.direction === 'outbound' && m.peer === AMELIA && m.buttons).at(-1)!;
    expect(asked.buttons).toEqual([
      { id: 'b1', title: 'Yes, call me' },
      { id: 'b2', title: 'No, thank you' },
    ]);
    const pressed = await fetch(`${live.sim.url}/__sim/press`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messageId: asked.id, buttonId: 'b1' }),
    });
    expect(pressed.status).toBe(200);
    const answer = page.locator('.bubble-row.in', { hasText: 'Chose: Yes, call me' });
    await answer.waitFor();
    const quote = answer.getByRole('button', { name: /^Reply to: Shall we call you tomorrow morning\?/ });
    await quote.click();
    // The link goes to the question itself.
    await expect.poll(() => page.locator('.bubble-row.highlight').textContent()).toContain('Shall we call you tomorrow morning?');
    await lookAt(page, context, 'buttons', async (phone) => {
      await phone.locator('.bubble-row.in', { hasText: 'Chose: Yes, call me' }).waitFor();
    });
    await context.close();
  });

  it('a director sets the business hours and the reply (a bad time zone and a reply too long refused by their fields); a client who writes while closed gets the automatic reply', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Director');
    await liveStreamOpen(page);
    await openSettings(page);
    const form = page.getByRole('form', { name: 'Business hours' });
    const zone = form.getByRole('combobox', { name: 'Time zone' });
    const reply = form.getByRole('textbox', { name: 'Automatic reply outside business hours' });
    await page.locator('.open-now[data-open="unset"]').waitFor();

    await zone.fill('Mars/Olympus_Mons');
    await reply.fill('We are closed. '.repeat(274)); // 4,110 characters
    expect(await form.locator('.reply-count').textContent()).toMatch(/over the limit of 4,096/);
    await form.getByRole('button', { name: 'Save business hours' }).click();
    await expect.poll(() => errorOf(zone)).toMatch(/Choose a time zone such as Europe\/London/);
    await expect.poll(() => errorOf(reply)).toMatch(/at most 4,096 characters/);
    await saveScreenshot(page, 'reach-business-hours-refused-1280');

    // Corrected: the week (Monday to Friday by default, Saturday morning added), today closed, the reply.
    await zone.fill('Europe/London');
    await form.getByRole('checkbox', { name: 'Saturday' }).check();
    await form.getByLabel('Saturday opens', { exact: true }).fill('10:00');
    await form.getByLabel('Saturday closes', { exact: true }).fill('13:00');
    await form.getByRole('button', { name: 'Add a break on Wednesday' }).click();
    const today = todayInLondon();
    await form.getByLabel('Closed date to add').fill(today);
    await form.getByRole('button', { name: 'Add date' }).click();
    const replyText = 'Thank you for your message. Our office is closed today; we will reply when we open.';
    await reply.fill(replyText);
    await form.getByRole('button', { name: 'Save business hours' }).click();
    await page.getByRole('status').filter({ hasText: 'Business hours saved.' }).waitFor();
    await page.locator('.open-now[data-open="false"]').waitFor();
    expect(await page.locator('.open-now').textContent()).toMatch(
      /^Closed today \(a closed date\) — opens .* \(Europe\/London time\)\. A client who writes now gets the automatic reply\./,
    );

    // Kept: read back from the server after a reload.
    await page.reload();
    await openSettings(page);
    expect(await zone.inputValue()).toBe('Europe/London');
    expect(await reply.inputValue()).toBe(replyText);
    expect(await form.getByRole('checkbox', { name: 'Saturday' }).isChecked()).toBe(true);
    expect(await form.getByLabel('Wednesday closes', { exact: true }).inputValue()).toBe('13:00');
    expect(await form.getByLabel('Wednesday opens (second interval)', { exact: true }).inputValue()).toBe('14:00');
    expect(await form.getByRole('list', { name: 'Closed dates' }).locator('time').getAttribute('datetime')).toBe(today);
    await lookAt(page, context, 'business-hours', async (phone) => {
      await phone.locator('.open-now[data-open="false"]').waitFor();
    });

    // Benedict writes while the firm is closed: the automatic reply goes to him, and says what it is.
    const before = live.sim.requests.length;
    await live.sim.sendInbound(BENEDICT, 'Are you open today? I have the payslips.', 'Benedict Okafor');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /Inbox/ }).click();
    await openThread(page, /Benedict Okafor/);
    const auto = page.locator('.bubble-row.out[data-auto-reply]', { hasText: replyText });
    await auto.waitFor({ timeout: 30_000 });
    expect(await auto.locator('.bubble-sender').textContent()).toBe('Automatic reply · outside business hours ·');
    expect(await auto.locator('.visually-hidden').first().textContent()).toMatch(/^Automatic reply · outside business hours, /);
    expect(sendsOf('text', before).map((r) => (r.body as { to: string; text: { body: string } }).text.body)).toContain(replyText);
    await lookAt(page, context, 'auto-reply', async (phone) => {
      await phone.locator('.bubble-row.out[data-auto-reply]').waitFor();
    });
    await context.close();
  });

  it('staff see the business hours, not the form', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await openSettings(page);
    await page.locator('.hours-summary').waitFor();
    expect(await page.getByRole('form', { name: 'Business hours' }).count()).toBe(0);
    expect(await page.locator('.hours-summary').textContent()).toContain('Saturday10:00–13:00');
    await context.close();
  });

  it('a template that starts with a document asks for one, refuses a photo, and sends the document with it', async () => {
    await live.sim.sendInbound(AMELIA, 'Can you send me the letter?', 'Amelia Hart');
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await openThread(page, /Amelia Hart/);
    await page.getByRole('button', { name: 'Approved template…' }).click();
    const form = page.getByRole('form', { name: 'Send an approved template' });
    const picker = form.getByRole('combobox', { name: 'Approved template' });
    await expect.poll(() => picker.locator('option').allTextContents()).toContain('Document attached (en_GB) — needs a document');
    await picker.selectOption({ label: 'Document attached (en_GB) — needs a document' });
    const header = form.getByRole('group', { name: 'This template starts with a document.' });
    await header.waitFor();
    await form.getByRole('textbox', { name: 'Value 2' }).fill('your deposit');
    expect(await form.getByRole('button', { name: 'Send template' }).isDisabled()).toBe(true);

    await header.locator('input[type="file"]').setInputFiles({ name: 'letter.jpg', mimeType: 'image/jpeg', buffer: JPEG });
    await header.getByRole('alert').filter({ hasText: 'letter.jpg is a photo: this template starts with a document' }).waitFor();
    expect(await form.getByRole('button', { name: 'Send template' }).isDisabled()).toBe(true);
    await header.locator('input[type="file"]').setInputFiles({ name: 'Deposit letter.pdf', mimeType: 'application/pdf', buffer: PDF });
    await header.getByText('Deposit letter.pdf').waitFor();
    expect(await header.getByRole('alert').count()).toBe(0);
    await lookAt(page, context, 'template-header', async (phone) => {
      await phone.getByRole('button', { name: 'Approved template…' }).click();
      // On a phone the form waits behind one button.
      await phone.getByRole('button', { name: 'Send a template…' }).click();
      await phone
        .getByRole('combobox', { name: 'Approved template' })
        .selectOption({ label: 'Document attached (en_GB) — needs a document' });
      await phone.getByText('This template starts with a document.').waitFor();
    });

    const before = live.sim.requests.length;
    await form.getByRole('button', { name: 'Send template' }).click();
    await expect.poll(() => sendsOf('template', before).length).toBe(1);
    const template = (
      sendsOf('template', before)[0]!.body as { template: { name: string; components: { type: string; parameters: unknown[] }[] } }
    ).template;
    expect(template.name).toBe('document_attached');
    expect(template.components.find((c) => c.type === 'header')?.parameters).toEqual([
      { type: 'document', document: { id: match.any(String), filename: 'Deposit letter.pdf' } },
    ]);
    // The thread shows the sent template with its document.
    await page.locator('.bubble-row.out', { hasText: 'Deposit letter.pdf' }).waitFor();
    await context.close();
  });
});
