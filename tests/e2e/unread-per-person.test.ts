import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { createHttpClient } from '../support/test-server';

// Unread is per person (server/inbox/README.md "Unread"): one person opening a conversation leaves the
// other's badge and unread filter alone; the same person's other tab follows their opening live.
describe.runIf(hasChromium())('unread per person in Chromium', () => {
  const live = useLiveBrowserSuite({ outOfOrderRate: 0 });
  const contexts: BrowserContext[] = [];
  let director: ReturnType<typeof createHttpClient>['client'];
  let staff: ReturnType<typeof createHttpClient>['client'];
  const clients = { amelia: 0, chloe: 0, sam: 0 };

  async function signedIn(role: 'Director' | 'Staff'): Promise<{ context: BrowserContext; page: Page }> {
    const signed = await signInDemo(live.browser, live.app.url, role, {});
    contexts.push(signed.context);
    await liveStreamOpen(signed.page);
    return signed;
  }
  const badgeOf = async (page: Page) => Number((await page.title()).match(/^\((\d+)\)/)?.[1] ?? 0);
  const rowOf = (page: Page, clientId: number) =>
    page.getByRole('list', { name: 'Conversations' }).locator(`a[data-thread="client-${clientId}"]`);

  beforeAll(async () => {
    director = createHttpClient(live.app.url).client;
    await director.auth.signIn.mutate({ email: 'director@demo.firm', password: 'demo-director-pass' });
    staff = createHttpClient(live.app.url).client;
    await staff.auth.signIn.mutate({ email: 'staff@demo.firm', password: 'demo-staff-pass' });
    const all = await director.clients.list.query();
    clients.amelia = all.find((c) => c.name === 'Amelia Hart')!.id;
    clients.chloe = all.find((c) => c.name === 'Chloe Martin')!.id;
    clients.sam = (await director.users.list.query()).find((u) => u.name === 'Sam Staff')!.id;
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
  });

  it('the director opening a conversation leaves the staff member’s badge and unread filter as they were', async () => {
    const diana = (await signedIn('Director')).page;
    const sam = (await signedIn('Staff')).page;
    await live.sim.sendInbound('447700900123', 'Is the completion date still Friday?');
    await live.sim.sendInbound('447700900123', 'And do you need the keys?');
    const samBefore = (await staff.inbox.unreadCount.query()).messages;
    const amelia = (await director.inbox.threadSummary.query({ clientId: clients.amelia }))!.unread;
    expect(amelia).toBeGreaterThanOrEqual(2);
    await expect.poll(() => badgeOf(sam), { timeout: 10_000 }).toBe(samBefore);
    const dianaBefore = (await director.inbox.unreadCount.query()).messages;
    await expect.poll(() => badgeOf(diana), { timeout: 10_000 }).toBe(dianaBefore);

    await diana.goto(`${live.app.url}/inbox/client/${clients.amelia}`);
    await liveStreamOpen(diana);
    await expect.poll(() => badgeOf(diana), { timeout: 10_000 }).toBe(dianaBefore - amelia);
    const samAmelia = (await staff.inbox.threadSummary.query({ clientId: clients.amelia }))!.unread;

    // A later message reaches Sam's page live (its badge is read again then): what Diana read is still unread for Sam.
    await live.sim.sendInbound('447700900789', 'Thanks for the letter');
    await expect.poll(() => badgeOf(sam), { timeout: 10_000 }).toBe(samBefore + 1);
    expect(samAmelia).toBeGreaterThanOrEqual(2);
    await sam.getByRole('radio', { name: 'Unread' }).click();
    await expect
      .poll(
        () =>
          rowOf(sam, clients.amelia)
            .getByLabel(/unread$/)
            .textContent(),
        { timeout: 10_000 },
      )
      .toBe(String(samAmelia));
    await saveScreenshot(sam, 'unread-per-person-staff-1280');
    await sam.setViewportSize({ width: 390, height: 860 });
    await saveScreenshot(sam, 'unread-per-person-staff-390');
  });

  it('opening a conversation clears its notifications in the same person’s other tab, live', async () => {
    // Read by the director first: nothing in it looks unread to anyone who would go by the firm's read.
    await director.inbox.markRead.mutate({ clientId: clients.chloe });
    await staff.notifications.markRead.mutate({ all: true }); // what the demo and the test above told Sam
    const { context, page: first } = await signedIn('Staff');
    const second = await context.newPage();
    await second.goto(`${live.app.url}/inbox`);
    await liveStreamOpen(second);
    await director.inbox.assign.mutate({ clientId: clients.chloe, userId: clients.sam });
    const bellOf = (page: Page) => page.getByRole('button', { name: /^Notifications/ });
    for (const page of [first, second])
      await expect.poll(() => bellOf(page).getAttribute('aria-label'), { timeout: 10_000 }).toBe('Notifications (1 unread)');

    await first.goto(`${live.app.url}/inbox/client/${clients.chloe}`);
    await liveStreamOpen(first);
    await expect.poll(() => bellOf(first).getAttribute('aria-label'), { timeout: 10_000 }).toBe('Notifications');
    await expect.poll(() => bellOf(second).getAttribute('aria-label'), { timeout: 10_000 }).toBe('Notifications');
  });
});
