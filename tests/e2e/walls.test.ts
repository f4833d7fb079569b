import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TAppProcess } from '../support/app-process';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';

type TClient = ReturnType<typeof createHttpClient>['client'];

// Ethical walls in the browser (server/access/README.md "Ethical walls"): what a screened person does not see — in
// the inbox, its counts, search, the clients list and a record's own address — what a live page
// never shows them, a conversation that closes the moment its person is screened, and a director
// restricting a client from its page.
describe.runIf(hasChromium())('ethical walls in Chromium', () => {
  const live = useLiveBrowserSuite();
  let app: TAppProcess;
  let browser: Browser;
  let director: TClient;
  // The demo staff account, "Sam Staff", is the person walls are put around.
  let samId: number;
  let sam: TClient;
  const contexts: BrowserContext[] = [];
  // The walled client, and clients Sam may see.
  const walled = { name: 'Quentin Zephyrwall', phone: '447700911001', id: 0 };
  const visible = { name: 'Vivian Openfield', phone: '447700911002', id: 0 };
  const closing = { name: 'Colette Closewell', phone: '447700911003', id: 0 };
  const restricting = { name: 'Rupert Lockhart', phone: '447700911004', id: 0 };

  /** An inbound chat message from the number, through the signed webhook, as the provider delivers it. */
  async function inbound(from: string, body: string): Promise<void> {
    expect((await live.sim.sendInbound(from, body)).status).toBe(200);
  }

  async function signedIn(role: 'Director' | 'Staff'): Promise<Page> {
    const { context, page } = await signInDemo(browser, app.url, role);
    contexts.push(context);
    return page;
  }

  beforeAll(async () => {
    ({ app, browser } = live);
    director = createHttpClient(app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    sam = createHttpClient(app.url).client;
    await sam.auth.signIn.mutate({ email: 'staff@demo.firm', password: 'demo-staff-pass' });
    samId = (await director.users.list.query()).find((u) => u.email === 'staff@demo.firm')!.id;
    for (const client of [walled, visible, closing, restricting])
      client.id = (await director.clients.create.mutate({ name: client.name, phone: `+${client.phone}` })).id;
    await inbound(walled.phone, 'About the quokkasecret settlement: please keep this between us.');
    await inbound(walled.phone, 'The other side must never hear of it.');
    await inbound(visible.phone, 'Here are the wombatopen papers you asked for.');
    await inbound(closing.phone, 'Colette here, checking in about the lease.');
    await director.access.screen.mutate({ clientId: walled.id, userId: samId, reason: 'Acted for the other side' });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('a screened person sees nothing of the client: not in the inbox, its counts, search, the clients list or at its address', async () => {
    // The director sees the walled client and its messages: what Sam is spared exists.
    expect((await director.inbox.search.query({ q: 'quokkasecret' })).items).toHaveLength(1);
    const all = await director.inbox.unreadCount.query();
    const walledUnread = (await director.inbox.threadSummary.query({ clientId: walled.id }))!.unread;
    expect(walledUnread).toBe(2);

    const page = await signedIn('Staff');
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await conversations.locator(`a[data-thread="client-${visible.id}"]`).waitFor();
    expect(await conversations.locator(`a[data-thread="client-${walled.id}"]`).count()).toBe(0);
    expect(await conversations.textContent()).not.toContain('Zephyrwall');
    // The badge and the tab's title count every unread message but the walled client's.
    const samUnread = all.messages - walledUnread;
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(`(${samUnread}) Firm Chat`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByLabel(`${samUnread} unread`).textContent()).toBe(String(samUnread));
    await saveScreenshot(page, 'walls-screened-inbox');

    // Search: the visible client's word is found, the walled client's is not.
    const search = page.getByRole('searchbox', { name: 'Search messages' });
    await search.fill('wombatopen');
    await page.getByRole('list', { name: 'Search results' }).getByText(visible.name).waitFor();
    await search.fill('quokkasecret');
    await page.getByText('No chat messages with those words.').waitFor();
    expect(await page.locator('.inbox-list').textContent()).not.toContain('Zephyrwall');

    // The clients list, and its search by name.
    await nav.getByRole('link', { name: 'Clients' }).click();
    const clientList = page.getByRole('region', { name: 'Client list' });
    await clientList.getByText(visible.name).waitFor();
    expect(await clientList.textContent()).not.toContain('Zephyrwall');
    await page.getByRole('searchbox', { name: 'Search clients' }).fill('Zephyrwall');
    await page.getByText('No client matches that search.').waitFor();

    // The client's page and its conversation at their addresses: closed as for one that does not exist.
    await page.goto(`${app.url}/clients/${walled.id}`);
    const gone = page.getByRole('alert').filter({ hasText: 'This client was not found.' });
    await gone.waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Zephyrwall|quokkasecret|other side/);
    const walledText = await gone.textContent();
    await page.goto(`${app.url}/clients/99999999`);
    await page.getByText('This client was not found.').waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'This client was not found.' }).textContent()).toBe(walledText);
    await page.goto(`${app.url}/inbox/client/${walled.id}`);
    await page.getByRole('alert').filter({ hasText: 'This conversation was not found.' }).waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/Zephyrwall|quokkasecret|other side/);
    await saveScreenshot(page, 'walls-screened-conversation');
  });

  it('a live inbox shows a new message from a visible client and never one from the walled client', async () => {
    const page = await signedIn('Staff');
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await conversations.locator(`a[data-thread="client-${visible.id}"]`).waitFor();
    await liveStreamOpen(page);
    const stamp = Date.now();
    // The walled client's message first: by the time the visible one is on screen, it would have been too.
    await inbound(walled.phone, `Walled news quokkasecret ${stamp}`);
    await inbound(visible.phone, `Visible news ${stamp}`);
    await conversations.getByText(`Visible news ${stamp}`).waitFor({ timeout: 15_000 });
    expect(await page.getByText(`Walled news quokkasecret ${stamp}`).count()).toBe(0);
    expect(await conversations.locator(`a[data-thread="client-${walled.id}"]`).count()).toBe(0);
    // The count follows the visible message only.
    const all = await director.inbox.unreadCount.query();
    const walledUnread = (await director.inbox.threadSummary.query({ clientId: walled.id }))!.unread;
    expect(walledUnread).toBe(3);
    await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(`(${all.messages - walledUnread}) Firm Chat`);
  });

  it('a conversation open on screen closes within 5 s of its person being screened', async () => {
    const page = await signedIn('Staff');
    await page.goto(`${app.url}/inbox/client/${closing.id}`);
    const conversation = page.getByRole('region', { name: 'Conversation' });
    await conversation.getByText('Colette here, checking in about the lease.').waitFor();
    await liveStreamOpen(page);

    // Five seconds from the director's request, whatever the page does meanwhile.
    await Promise.all([
      page.getByText('You no longer have access to this conversation.').waitFor({ timeout: 5_000 }),
      director.access.screen.mutate({ clientId: closing.id, userId: samId, reason: 'Now acting for the landlord' }),
    ]);
    expect(await page.getByText('Colette here, checking in about the lease.').count()).toBe(0);
    // And the conversation leaves the list beside it.
    await page
      .getByRole('list', { name: 'Conversations' })
      .locator(`a[data-thread="client-${closing.id}"]`)
      .waitFor({ state: 'detached', timeout: 5_000 });
    await saveScreenshot(page, 'walls-conversation-closed');
  });

  it('a director restricts a client from its Access panel, and the clients list marks it Restricted', async () => {
    const me = await director.auth.me.query();
    const page = await signedIn('Director');
    await page.goto(`${app.url}/clients/${restricting.id}`);
    await page.getByRole('heading', { name: restricting.name }).waitFor();
    const panel = page.getByRole('region', { name: 'Who can see this client' });
    const restricted = panel.getByRole('switch', { name: 'Restricted' });
    expect(await restricted.getAttribute('aria-checked')).toBe('false');

    // The director adds themself as a member, then restricts it.
    const addMember = panel.getByRole('form', { name: 'Add a member' });
    await addMember.getByRole('combobox').selectOption({ value: String(me!.id) });
    await addMember.getByRole('button', { name: 'Add' }).click();
    await panel.getByRole('list', { name: 'Members' }).locator(`li[data-user-id="${me!.id}"]`, { hasText: me!.name }).waitFor();
    await restricted.click();
    await panel.locator('[role="switch"][aria-checked="true"]').waitFor();
    await page.getByRole('heading', { name: restricting.name }).getByRole('img', { name: 'Restricted' }).waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    const row = page.getByRole('region', { name: 'Client list' }).locator('.row-title', { hasText: restricting.name });
    await row.getByRole('img', { name: 'Restricted' }).waitFor();
    expect(await page.getByRole('region', { name: 'Client list' }).locator('.row-title', { hasText: visible.name }).textContent()).toBe(
      visible.name,
    );
    await saveScreenshot(page, 'walls-restricted-client');
    // Sam, not a member, no longer has it.
    expect((await sam.clients.list.query()).map((c) => c.name)).not.toContain(restricting.name);
    expect((await sam.clients.list.query()).map((c) => c.name)).toContain(visible.name);
  });
});
