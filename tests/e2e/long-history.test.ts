import type { Browser, Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TAppProcess } from '../support/app-process';
import { useLiveBrowserSuite } from '../support/live-app';
import { hasChromium, liveStreamOpen, saveScreenshot, signInDemo, untilStill } from '../support/browser';
import { sql } from '../support/sql';

// Long histories, as a reader meets them: 150 conversations scrolled to the oldest, and
// a client of 20,000 messages whose thread opens at the newest and loads earlier pages above
// without moving what is on screen.
describe.runIf(hasChromium())('long histories in Chromium', () => {
  // Live mode against the provider simulator, on a PostgreSQL this test can load directly.
  const live = useLiveBrowserSuite();
  let app: TAppProcess;
  let ownerUrl: string;
  let browser: Browser;
  let longId: number;

  beforeAll(async () => {
    ({ app, ownerUrl, browser } = live);
    // 150 clients who each wrote once, a day and more ago, an hour apart ("Conversation 150" oldest).
    await sql(
      ownerUrl,
      `WITH c AS (INSERT INTO clients (name) SELECT 'Conversation ' || lpad(g::text, 3, '0') FROM generate_series(1, 150) g RETURNING id, name),
            n AS (INSERT INTO client_numbers (client_id, digits, "primary") SELECT c.id, '4477009' || lpad(c.id::text, 5, '0'), true FROM c)
       INSERT INTO communications (type, direction, body, client_id, peer_phone, metadata, receipts, created_at, updated_at, read_at)
       SELECT 'chat', 'inbound', 'Hello from ' || c.name, c.id, '4477009' || lpad(c.id::text, 5, '0'), '{}', '{}',
              now() - interval '1 day' - substr(c.name, 14)::int * interval '1 hour', now(), now()
       FROM c`,
    );
    // One client with 20,000 messages, the newest a minute ago.
    longId = (await sql<{ id: number }>(ownerUrl, `INSERT INTO clients (name) VALUES ('Lorna Long') RETURNING id`))[0]!.id;
    await sql(ownerUrl, `INSERT INTO client_numbers (client_id, digits, "primary") VALUES ($1, '447700955555', true)`, [longId]);
    await sql(
      ownerUrl,
      `INSERT INTO communications (type, direction, status, body, client_id, peer_phone, metadata, receipts, created_at, updated_at, read_at)
       SELECT 'chat', CASE WHEN g % 2 = 0 THEN 'inbound' ELSE 'outbound' END, CASE WHEN g % 2 = 1 THEN 'read' END,
              'Long history message ' || g, $1, '447700955555', '{}', '{}', now() - interval '1 minute' - (20000 - g) * interval '10 minutes', now(), now()
       FROM generate_series(1, 20000) g`,
      [longId],
    );
  });

  const signIn = async (): Promise<Page> => (await signInDemo(browser, app.url, 'Staff', { height: 800 })).page;

  it('scrolls the inbox to its oldest conversation: every one listed once, newest activity first', async () => {
    const page = await signIn();
    const list = page.getByRole('list', { name: 'Conversations' });
    await list.getByText('Lorna Long').waitFor();
    expect(await list.locator('a[data-thread]').count()).toBe(50); // the first page
    // A message for a conversation on no loaded page brings it to the top, live.
    const oldest = (
      await sql<{ id: number; digits: string }>(
        ownerUrl,
        `SELECT c.id, n.digits FROM clients c JOIN client_numbers n ON n.client_id = c.id WHERE c.name = 'Conversation 150'`,
      )
    )[0]!;
    await liveStreamOpen(page);
    await live.sim.sendInbound(oldest.digits, 'Back after a long time');
    await expect.poll(() => list.locator('a[data-thread]').first().textContent(), { timeout: 15_000 }).toContain('Back after a long time');
    await expect(list.locator('a[data-thread]').first().textContent()).resolves.toContain('Conversation 150');
    const end = page.getByText('No older conversations.');
    const listed = () => list.locator('a[data-thread]').count();
    // Each scroll to the bottom brings the next page, until the end is said.
    for (let i = 0; i < 20 && !(await end.isVisible()); i++) {
      const before = await listed();
      await list.locator('li').last().scrollIntoViewIfNeeded();
      await expect.poll(async () => (await end.isVisible()) || (await listed()) > before).toBe(true);
    }
    await end.waitFor();
    const keys = await list.locator('a[data-thread]').evaluateAll((links) => links.map((a) => (a as HTMLElement).dataset.thread));
    const count = (await sql<{ count: number }>(ownerUrl, 'SELECT count(*)::int AS count FROM chat_threads'))[0]!.count;
    expect(count).toBeGreaterThan(150);
    expect(keys).toHaveLength(count);
    expect(new Set(keys).size).toBe(count);
    await expect(list.locator('a[data-thread]').last().textContent()).resolves.toContain('Conversation 149'); // 150 moved to the top
    await saveScreenshot(page, 'inbox-oldest');
    await page.context().close();
  });

  it('opens a 20,000-message thread at the newest, draws only what is on screen, and loads earlier pages above in order', async () => {
    const page = await signIn();
    await page.goto(`${app.url}/inbox/client/${longId}`);
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByText('Long history message 20000', { exact: true }).waitFor();
    await expect(messages.getByText('Long history message 20000', { exact: true }).isVisible()).resolves.toBe(true);
    expect(await messages.locator('.bubble-row').count()).toBeLessThan(60);

    /** Numbers of the messages drawn, top to bottom, and where each sits in the list's view. */
    const drawn = () =>
      messages.evaluate((ol) => {
        const box = ol.parentElement!.getBoundingClientRect();
        const rows = [...ol.querySelectorAll('.bubble-row')].map((row) => ({
          n: Number(/message (\d+)/.exec(row.textContent ?? '')?.[1]),
          top: row.getBoundingClientRect().top - box.top,
          bottom: row.getBoundingClientRect().bottom - box.top,
        }));
        return rows;
      });
    const numbersIncrease = (rows: { n: number }[]) => rows.every((row, i) => i === 0 || row.n === rows[i - 1]!.n + 1);

    // The reader takes over (a key; at the end, End moves nothing), which ends the list's own hold
    // at the end, and the rows drawn there have been measured and placed.
    await page.locator('#conversation').press('End');
    await untilStill(messages);
    for (const round of [1, 2]) {
      // The earlier page is held back until the top has been measured: when it came first (a fast
      // answer on a busy machine), there was no "before" to compare with.
      let release = () => undefined as void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const olderPage = (url: URL) => url.pathname.includes('inbox.thread') && url.search.includes('cursor');
      const holdBack = async (route: Route) => {
        await held;
        // A request the page gave up meanwhile (asking for the same page again cancels the first) is gone.
        await route.continue().catch(() => undefined);
      };
      await page.route(olderPage, holdBack);
      // Scroll to the top of what is loaded: the oldest loaded message is the first drawn.
      await messages.evaluate((ol) => (ol.parentElement!.scrollTop = 0));
      const oldestLoaded = 20000 - round * 50 + 1; // pages of 50
      await messages.getByText(`Long history message ${oldestLoaded}`, { exact: true }).waitFor();
      await untilStill(messages);
      const before = (await drawn()).find((row) => row.top >= 0)!;
      expect(before.n).toBe(oldestLoaded);
      release();
      // The earlier page arrives above it; it stays where the reader saw it.
      await messages.getByText(`Long history message ${before.n - 1}`, { exact: true }).waitFor({ state: 'attached' });
      await page.unroute(olderPage, holdBack);
      await untilStill(messages);
      const after = await drawn();
      const same = after.find((row) => row.n === before.n);
      expect(same, `message ${before.n} still drawn`).toBeDefined();
      expect(Math.abs(same!.top - before.top)).toBeLessThan(4);
      expect(numbersIncrease(after)).toBe(true);
      expect(after.findIndex((row) => row.n === before.n)).toBeGreaterThan(0); // rows drawn above it
    }
    await saveScreenshot(page, 'thread-long-history');
    // A message arriving while the reader is up here: announced, not scrolled to, and unread until seen.
    await live.sim.sendInbound('447700955555', 'Are you there?');
    const below = page.getByRole('button', { name: 'New message below ↓' });
    await below.waitFor({ timeout: 15_000 });
    // A second message shown in the conversation list: by then the page has long dealt with the first,
    // and marked nothing read (both still unread).
    await live.sim.sendInbound('447700955555', 'Hello?');
    const conversations = page.getByRole('list', { name: 'Conversations' });
    await conversations.locator('a[data-thread]', { hasText: 'Lorna Long' }).getByText('Hello?').waitFor({ timeout: 15_000 });
    const unreadBefore = (await sql<{ unread: number }>(ownerUrl, `SELECT unread FROM chat_threads WHERE client_id = $1`, [longId]))[0]!
      .unread;
    expect(unreadBefore).toBe(2);
    await below.click();
    await messages.getByText('Are you there?', { exact: true }).waitFor();
    await messages.getByText('Hello?', { exact: true }).waitFor();
    await expect
      .poll(
        async () => (await sql<{ unread: number }>(ownerUrl, `SELECT unread FROM chat_threads WHERE client_id = $1`, [longId]))[0]!.unread,
        { timeout: 10_000 },
      )
      .toBe(0);
    await expect(below.count()).resolves.toBe(0);
    // The order holds down to the newest again.
    await messages.evaluate((ol) => (ol.parentElement!.scrollTop = ol.parentElement!.scrollHeight));
    await untilStill(messages);
    const bottom = (await drawn()).filter((row) => Number.isFinite(row.n)); // the numbered history, not the message just sent
    expect(numbersIncrease(bottom)).toBe(true);
    expect(bottom.at(-1)?.n).toBe(20000);
    await page.context().close();
  });

  it('opens a search hit 5,000 messages back: earlier pages load until it is there, then it is shown, marked and focused', async () => {
    const [hit] = await sql<{ id: number }>(ownerUrl, `SELECT id FROM communications WHERE body = 'Long history message 15000'`);
    const page = await signIn();
    await page.goto(`${app.url}/inbox/client/${longId}?message=${hit!.id}`);
    const messages = page.getByRole('list', { name: 'Messages' });
    const shown = messages.locator(`[data-id="${hit!.id}"]`);
    await shown.and(page.locator('.highlight')).waitFor({ timeout: 30_000 });
    await expect(shown.isVisible()).resolves.toBe(true);
    await expect.poll(() => shown.evaluate((row) => row.contains(document.activeElement))).toBe(true);
    // Found: the status line no longer says it is looking.
    await expect.poll(() => page.getByText('Finding the message in earlier pages').count()).toBe(0);
    await saveScreenshot(page, 'thread-long-history-search-hit');
    await page.context().close();
  });
});
