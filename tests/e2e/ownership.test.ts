import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { keysOf, strokesAtOnce, type TStroke } from '../support/keys-at-once';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';

// Ownership in two browsers (server/ownership/README.md "Ownership"): a director gives a conversation to Sam and Sam's
// page is told at once; a note with a mention is shown as internal, tells its person, and never
// reaches the provider; a snoozed conversation leaves the Open list and comes back by itself.
describe.runIf(hasChromium())('ownership in Chromium', () => {
  const live = useLiveBrowserSuite({ outOfOrderRate: 0 });
  const contexts: BrowserContext[] = [];
  let director: ReturnType<typeof createHttpClient>['client'];
  const clients = { chloe: 0, emily: 0 };

  async function signedIn(role: 'Director' | 'Staff'): Promise<Page> {
    const { context, page } = await signInDemo(live.browser, live.app.url, role);
    contexts.push(context);
    await liveStreamOpen(page);
    return page;
  }

  beforeAll(async () => {
    director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    const all = await director.clients.list.query();
    clients.chloe = all.find((c) => c.name === 'Chloe Martin')!.id;
    clients.emily = all.find((c) => c.name === 'Emily Novak')!.id;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('one person assigns a conversation; the other is told live and finds it under Mine', async () => {
    const diana = await signedIn('Director');
    const sam = await signedIn('Staff');
    const bell = sam.getByRole('button', { name: /^Notifications/ });
    await expect.poll(() => bell.getAttribute('aria-label')).not.toMatch(/\(\d+ unread\)/);

    await diana.goto(`${live.app.url}/inbox/client/${clients.chloe}`);
    await liveStreamOpen(diana);
    await diana.getByRole('button', { name: /^Assignee/ }).click();
    await diana.getByRole('menuitem', { name: 'Sam Staff' }).click();

    // Sam's page was not reloaded: the bell counts it, and the notification opens the conversation.
    await expect.poll(() => bell.getAttribute('aria-label'), { timeout: 10_000 }).toBe('Notifications (1 unread)');
    await bell.click();
    const told = sam.getByRole('link', { name: /Chloe Martin/ }).first();
    await expect.poll(() => told.textContent()).toMatch(/Diana Director/);
    await saveScreenshot(sam, 'ownership-notified');
    await told.click();
    await sam.waitForURL(`**/inbox/client/${clients.chloe}**`);
    await expect.poll(() => sam.getByRole('button', { name: /^Assignee/ }).textContent()).toMatch(/Sam Staff/);
    await sam.getByRole('radio', { name: 'Mine' }).click();
    const conversations = sam.getByRole('list', { name: 'Conversations' });
    await conversations.locator(`a[data-thread="client-${clients.chloe}"]`).waitFor();
  });

  it('a note with a mention is internal, tells its person, and never reaches the provider', async () => {
    const diana = await signedIn('Director');
    const sam = await signedIn('Staff');
    const requestsBefore = live.sim.requests.length;
    await diana.goto(`${live.app.url}/inbox/client/${clients.emily}`);
    await liveStreamOpen(diana);
    await diana.getByRole('button', { name: 'Internal note' }).click();
    const box = diana.getByRole('textbox', { name: /note/i });
    await box.fill('Spoke to her by phone; ');
    await box.pressSequentially('@Sam');
    await diana
      .getByRole('listbox')
      .getByRole('option', { name: /Sam Staff/ })
      .click();
    await box.pressSequentially('please send the engagement letter.');
    await diana.getByRole('button', { name: 'Add note' }).click();

    const note = diana.getByRole('note').filter({ hasText: 'please send the engagement letter' });
    await note.waitFor();
    expect(await note.textContent()).toMatch(/not sent to the client/);
    await saveScreenshot(diana, 'ownership-note');

    const bell = sam.getByRole('button', { name: /^Notifications/ });
    await expect.poll(() => bell.getAttribute('aria-label'), { timeout: 10_000 }).toMatch(/\(1 unread\)|\(2 unread\)/);
    const [stored] = (await director.inbox.thread.query({ clientId: clients.emily })).items.filter((i) => i.type === 'chat_note');
    expect(stored).toMatchObject({ metadata: { mentions: [expect.any(Number)] }, direction: null, status: null });
    // Nothing went to the provider for it: the simulator recorded no call since.
    expect(live.sim.requests.slice(requestsBefore)).toEqual([]);
  });

  it('what is typed right after a name is picked follows the name, however fast it comes', async () => {
    const diana = await signedIn('Director');
    await diana.goto(`${live.app.url}/inbox/client/${clients.chloe}`);
    await liveStreamOpen(diana);
    await diana.getByRole('button', { name: 'Internal note' }).click();
    const box = diana.getByRole('textbox', { name: /note/i });
    const option = diana.getByRole('listbox').getByRole('option', { name: /Sam Staff/ });
    const picks: Record<string, () => Promise<TStroke>> = {
      Enter: () => Promise.resolve({ key: 'Enter' }),
      Tab: () => Promise.resolve({ key: 'Tab' }),
      click: async () => {
        const { x, y, width, height } = (await option.boundingBox())!;
        return { pressAt: { x: x + width / 2, y: y + height / 2 } };
      },
    };
    // Each pick where the name ends the text and where text follows it; the next keys come
    // before the page could draw a frame.
    const typed: string[] = [];
    const meant: string[] = [];
    for (const [how, pick] of Object.entries(picks)) {
      for (const after of ['', ' is back Monday.']) {
        await box.fill(`Ask ${after}`);
        await box.evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(4, 4));
        await diana.keyboard.type('@Sa');
        await option.waitFor();
        await strokesAtOnce(diana, [await pick(), ...keysOf('to call back')]);
        typed.push(`${how}: ${await box.inputValue()}`);
        meant.push(`${how}: Ask @Sam Staff to call back${after}`);
      }
    }
    expect(typed).toEqual(meant);
  });

  it('a snoozed conversation leaves the Open list and comes back by itself when the snooze ends', async () => {
    const sam = await signedIn('Staff');
    const conversations = sam.getByRole('list', { name: 'Conversations' });
    const row = conversations.locator(`a[data-thread="client-${clients.emily}"]`);
    await row.waitFor();
    await sam.goto(`${live.app.url}/inbox/client/${clients.emily}`);
    await liveStreamOpen(sam);
    await sam.getByRole('button', { name: 'Snooze', exact: true }).click();
    await sam.getByRole('menuitem', { name: /Later today|In 3 hours/ }).click();
    await row.waitFor({ state: 'detached' });
    // The state switch is a radio group: one Tab stop, arrows move the choice.
    await sam.getByRole('radio', { name: 'Open' }).focus();
    await sam.keyboard.press('ArrowRight');
    await sam.getByRole('radio', { name: 'Done', checked: true }).waitFor();
    await sam.keyboard.press('ArrowRight');
    await sam.getByRole('radio', { name: 'Snoozed', checked: true }).waitFor();
    expect(await sam.evaluate(() => document.activeElement?.textContent)).toBe('Snoozed');
    await row.waitFor();
    await sam.getByRole('radio', { name: 'Open' }).click();
    await row.waitFor({ state: 'detached' });

    // The snooze is moved to end in two seconds (as another person's change): the page is told
    // when it ends, with no reload, by the server's own timer.
    await director.inbox.setState.mutate({ clientId: clients.emily, state: 'snoozed', snoozeUntil: new Date(Date.now() + 2_000) });
    await row.waitFor({ timeout: 15_000 });
  });
});
