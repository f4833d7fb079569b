import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { match } from '../support/matchers';
import { axeOn } from '../support/axe';

const PRIYA = '447700900999'; // an unlinked number in the demo data: its conversation is keyed by phone

/** Words, not one long run of a letter, so the screenshots look like a real long message. */
function prose(length: number): string {
  const sentence = 'The tenancy deposit was protected late, so the landlord owes a penalty on top of the deposit itself. ';
  return sentence.repeat(Math.ceil(length / sentence.length)).slice(0, length);
}

describe.runIf(hasChromium())('the composer, in Chromium: wording, drafts, the length limit and Enter on a phone', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [300, 600, 900], outOfOrderRate: 0 });

  /** Signed in as demo staff; CSP bypassed so axe-core can be injected; a phone (touch) when asked. */
  async function signIn(
    options: { width?: number; height?: number; touch?: boolean } = {},
  ): Promise<{ context: BrowserContext; page: Page }> {
    const context = await live.browser.newContext({
      viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
      hasTouch: options.touch,
      isMobile: options.touch,
      bypassCSP: true,
    });
    const page = await context.newPage();
    await page.goto(live.app.url);
    await page.getByRole('textbox', { name: 'Email' }).fill('staff@demo.firm');
    await page.getByRole('textbox', { name: 'Password' }).fill('demo-staff-pass');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    return { context, page };
  }
  /** WCAG 2.1 AA violations inside the composer, as axe-core measures them. */
  async function composerViolations(page: Page): Promise<string[]> {
    const result = await axeOn(page, '.composer');
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  async function openThread(page: Page, name: RegExp): Promise<void> {
    await page.locator('[data-thread]', { hasText: name }).first().click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
  }
  const message = (page: Page) => page.getByRole('textbox', { name: 'Message' });

  it('firm wording goes in beside what was typed, only on Insert, follows the case chosen after it, and can be undone', async () => {
    const { page, context } = await signIn();
    await openThread(page, /Amelia Hart/);
    await message(page).fill('Please note:');

    // Moving through the list (a choice, or ArrowDown on the closed picker) inserts nothing.
    const picker = page.getByRole('combobox', { name: 'Firm wording' });
    await picker.selectOption({ label: 'Appointment reminder' });
    await picker.focus();
    await picker.press('ArrowDown');
    expect(await picker.inputValue()).not.toBe('appointment-reminder'); // the key did move the choice
    await picker.selectOption({ label: 'Hearing date' });
    expect(await message(page).inputValue()).toBe('Please note:');

    await page.getByRole('button', { name: 'Insert wording' }).click();
    const inserted = await message(page).inputValue();
    // The case the conversation's recent messages are on is offered, so the wording names it.
    expect(inserted).toMatch(
      /^Please note:\nHello Amelia, the hearing for HART-2026-001 \(Hart v Northwind Lettings \(deposit dispute\)\) has been listed\./,
    );
    await page.getByText('“Hearing date” inserted').waitFor();
    await saveScreenshot(page, 'composer-wording-inserted');
    expect(await composerViolations(page)).toEqual([]);

    // The case picker names each case by reference and title; the one chosen now fills the wording.
    const casePicker = page.getByRole('combobox', { name: 'File on case' });
    const options = await casePicker.locator('option').allTextContents();
    expect(options).toContain('HART-2026-002 — Will and lasting power of attorney');
    await casePicker.selectOption({ label: 'HART-2026-002 — Will and lasting power of attorney' });
    await expect
      .poll(() => message(page).inputValue())
      .toContain('the hearing for HART-2026-002 (Will and lasting power of attorney) has been listed');
    expect(await message(page).inputValue()).toMatch(/^Please note:\nHello Amelia/);

    // Undo takes the wording out and leaves what was typed.
    await page.getByRole('button', { name: 'Undo' }).click();
    expect(await message(page).inputValue()).toBe('Please note:');

    // Once edited by hand the wording is the person's text: another case changes nothing in it.
    await picker.selectOption({ label: 'Please call us' });
    await page.getByRole('button', { name: 'Insert wording' }).click();
    const typed = (await message(page).inputValue()).replace('could you please call', 'could you call');
    await message(page).fill(typed);
    await casePicker.selectOption({ label: 'HART-2026-001 — Hart v Northwind Lettings (deposit dispute)' });
    // A key typed after the case change reaches the box once that change has been dealt with: the
    // text is then what was typed, plus the key, and nothing the case would have put in.
    await message(page).press('End');
    await message(page).press('!');
    await expect.poll(async () => (await message(page).inputValue()).endsWith('!')).toBe(true);
    expect(await message(page).inputValue()).toBe(`${typed}!`);
    expect(await page.getByRole('button', { name: 'Undo' }).count()).toBe(0);

    // The approved templates: a case chosen after the template fills its value; a value typed stays.
    await page.getByRole('button', { name: 'Approved template…' }).click();
    const form = page.getByRole('form', { name: 'Send an approved template' });
    await form.getByRole('combobox', { name: 'Approved template' }).selectOption({ label: 'Document request (en_GB)' });
    expect(await form.getByRole('textbox', { name: 'Value 2' }).inputValue()).toBe('HART-2026-001');
    await form.getByRole('textbox', { name: 'Value 1' }).fill('Mrs Hart');
    await casePicker.selectOption({ label: 'HART-2026-002 — Will and lasting power of attorney' });
    await expect.poll(() => form.getByRole('textbox', { name: 'Value 2' }).inputValue()).toBe('HART-2026-002');
    expect(await form.getByRole('textbox', { name: 'Value 1' }).inputValue()).toBe('Mrs Hart');
    await casePicker.selectOption({ label: 'No case' });
    await expect.poll(() => form.getByRole('textbox', { name: 'Value 2' }).inputValue()).toBe('');
    await context.close();
  });

  it('each conversation keeps its own draft, through switching and a reload, until it is sent', async () => {
    const { page, context } = await signIn();
    await openThread(page, /Amelia Hart/);
    await message(page).fill('Draft for Amelia:\nthe deposit');
    await openThread(page, /Priya Shah/);
    expect(await message(page).inputValue()).toBe('');
    const priyaText = `Draft for Priya (${Date.now()})`;
    await message(page).fill(priyaText);
    await openThread(page, /Amelia Hart/);
    expect(await message(page).inputValue()).toBe('Draft for Amelia:\nthe deposit');

    await page.reload();
    await message(page).waitFor();
    expect(await message(page).inputValue()).toBe('Draft for Amelia:\nthe deposit');
    await openThread(page, /Priya Shah/);
    expect(await message(page).inputValue()).toBe(priyaText);
    const keys = () =>
      page.evaluate(() =>
        Object.keys(localStorage)
          .filter((k) => k.startsWith('firm-chat:draft:'))
          .sort(),
      );
    expect(await keys()).toEqual([match.stringMatching(/:client-\d+$/), match.stringMatching(new RegExp(`:phone-${PRIYA}$`))]);

    // Sent: the draft is gone, here and after a reload; Amelia's stays.
    await message(page).press('Enter');
    // Stored by the server (no longer the optimistic copy) before the reload, which would cut the send short.
    await page.locator('.bubble-row.out:not([data-status="pending"])', { hasText: priyaText }).waitFor();
    expect(await message(page).inputValue()).toBe('');
    expect(await keys()).toEqual([match.stringMatching(/:client-\d+$/)]);
    await page.reload();
    await message(page).waitFor();
    expect(await message(page).inputValue()).toBe('');
    await openThread(page, /Amelia Hart/);
    expect(await message(page).inputValue()).toBe('Draft for Amelia:\nthe deposit');
    await context.close();
  });

  it('a paste over 4,096 characters is kept whole and refused with the reason; a counter shows near the limit; the box grows with the text', async () => {
    const { page, context } = await signIn();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: live.app.url });
    await openThread(page, /Amelia Hart/);
    const box = message(page);
    const send = page.getByRole('button', { name: 'Send', exact: true });
    const heightOf = () => box.evaluate((el) => el.getBoundingClientRect().height);

    await box.fill('One line');
    const oneLine = await heightOf();
    await box.fill('A line\n'.repeat(6).trim());
    expect(await heightOf()).toBeGreaterThan(oneLine + 40);
    await box.fill('A line\n'.repeat(80).trim());
    const tall = await heightOf();
    expect(tall).toBeLessThanOrEqual(260); // up to its height, then it scrolls
    expect(await box.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);

    await box.fill('');
    await page.evaluate((text) => navigator.clipboard.writeText(text), prose(4200));
    await box.focus();
    await page.keyboard.press('ControlOrMeta+V');
    await expect.poll(() => box.inputValue().then((v) => v.length)).toBe(4200);
    await page
      .getByRole('alert')
      .filter({ hasText: 'A message can be at most 4,096 characters. Shorten it, or send it as two messages.' })
      .waitFor();
    await page.getByText('104 characters over the limit').waitFor();
    expect(await send.isDisabled()).toBe(true);
    await saveScreenshot(page, 'composer-over-limit');
    expect(await composerViolations(page)).toEqual([]);
    const sends: string[] = [];
    page.on('request', (request) => {
      if (/\/trpc\/[^?]*chat\.send(?![a-zA-Z])/.test(request.url())) sends.push(request.postData() ?? '');
    });
    await box.press('Enter');
    expect(await box.inputValue()).toHaveLength(4200);
    // Enter does not send it either: a short message sent next is the only send the page makes.
    const short = `Short enough (${Date.now()})`;
    await box.fill(short);
    await box.press('Enter');
    await page.locator('.bubble-row.out:not([data-status="pending"])', { hasText: short }).waitFor();
    expect(sends).toHaveLength(1);
    expect(sends[0]).toContain(short);

    await box.fill(prose(3884));
    await page.getByText('212 characters left').waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'at most 4,096' }).count()).toBe(0);
    expect(await send.isEnabled()).toBe(true);
    await box.fill(prose(3700));
    expect(await page.getByText(/characters left/).count()).toBe(0);

    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      await box.fill(prose(3884));
      await page.getByText('212 characters left').waitFor();
      await saveScreenshot(page, `composer-limit-${width}`);
      const composer = await page.getByRole('form', { name: 'Write a message' }).boundingBox();
      expect(composer!.x + composer!.width).toBeLessThanOrEqual(width);
    }
    await context.close();
  });

  it('on a phone Enter starts a new line and the button sends; on a desktop Enter sends and Shift+Enter starts a line', async () => {
    const { context: phone, page } = await signIn({ width: 390, height: 844, touch: true });
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    await openThread(page, /Amelia Hart/);
    expect(await message(page).getAttribute('placeholder')).toBe('Write a message');

    const text = `Line one (${Date.now()})`;
    await message(page).tap();
    await page.keyboard.type(text);
    await page.keyboard.press('Enter');
    await page.keyboard.type('Line two');
    expect(await message(page).inputValue()).toBe(`${text}\nLine two`);
    await page.getByRole('button', { name: 'Send', exact: true }).tap();
    // Once the button's send is stored, a send made by Enter before it would be on screen too: there is one.
    await page.locator('.bubble-row.out:not([data-status="pending"])', { hasText: text }).waitFor();
    const bubble = page.locator('.bubble-row.out', { hasText: text });
    expect(await bubble.count()).toBe(1);
    expect(await bubble.textContent()).toContain('Line two');
    expect(await message(page).inputValue()).toBe('');
    await phone.close();

    const { page: desk, context } = await signIn();
    await openThread(desk, /Amelia Hart/);
    expect(await message(desk).getAttribute('placeholder')).toBe('Write a message — Enter to send, Shift+Enter for a new line');
    const deskText = `Desk line one (${Date.now()})`;
    await message(desk).focus();
    await desk.keyboard.type(deskText);
    await desk.keyboard.press('Shift+Enter');
    await desk.keyboard.type('Desk line two');
    expect(await message(desk).inputValue()).toBe(`${deskText}\nDesk line two`);
    await desk.keyboard.press('Enter');
    await desk.locator('.bubble-row.out', { hasText: deskText }).waitFor();
    expect(await message(desk).inputValue()).toBe('');
    await context.close();
  });
});
