import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TAppProcess } from '../support/app-process';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { axeOn } from '../support/axe';

// The audit page as a director reads it: one sentence per event with names, not ids; the chain's
// head and a check of the whole chain; filters by what an event is about and by hash.

/** A tRPC call from inside the signed-in page (its cookie, its origin), as the SPA makes it. */
async function call<T>(page: Page, path: string, input: unknown, kind: 'query' | 'mutation'): Promise<T> {
  return page.evaluate(
    async ({ path, input, kind }) => {
      const body = JSON.stringify({ json: input });
      const res =
        kind === 'query'
          ? await fetch(`/trpc/${path}?input=${encodeURIComponent(body)}`)
          : await fetch(`/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as { result?: { data: { json: unknown } }; error?: unknown };
      if (!answer.result) throw new Error(`${path}: ${JSON.stringify(answer.error)}`);
      return answer.result.data.json;
    },
    { path, input, kind },
  ) as Promise<T>;
}

describe.runIf(hasChromium())('the audit page', () => {
  const live = useLiveBrowserSuite();
  let app: TAppProcess;
  let browser: Browser;
  let ameliaId: number;
  beforeAll(() => {
    ({ app, browser } = live);
  });

  // What the trail shows came partly from outside: a character that hides itself or turns the text
  // around must be seen for what it is, never take effect on the page. A failed sign-in stores the
  // email as typed: here with a right-to-left override (the rest reads "exe.pdf"), an Arabic letter
  // mark, a zero-width space and a byte order mark.
  describe('shows hidden characters by their code', () => {
    const typed = 'invoice\u202Efdp.exe\u061C\u200B\uFEFF@firm.test';
    const shown = 'invoice[U+202E]fdp.exe[U+061C][U+200B][U+FEFF]@firm.test';

    beforeAll(async () => {
      const res = await fetch(`${app.url}/trpc/auth.signIn`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ json: { email: typed, password: 'not-the-password' } }),
      });
      expect(res.status).toBe(401);
    });

    it.each([
      ['the table', 1280, 'tr'],
      ['the phone layout', 390, '.audit-list li'],
    ])('in %s', async (_layout, width, item) => {
      const { page, context } = await signInDemo(browser, app.url, 'Director', { width });
      await page.goto(`${app.url}/audit`);
      const event = page.locator(`${item}[data-action="auth.sign_in_failed"]`, { hasText: 'invoice' });
      await event.first().waitFor();
      const text = (await event.first().textContent()) ?? '';
      expect(text).toContain(`A sign-in as ${shown} failed: no account has this email`);
      expect(text).not.toMatch(/[\u202E\u061C\u200B\uFEFF]/);
      await context.close();
    });
  });

  describe('names, the chain and the filters', () => {
    beforeAll(async () => {
      // A director's day: a number added to a client, her conversation taken on, her chat exported.
      const { page, context } = await signInDemo(browser, app.url, 'Director');
      const [amelia] = await call<{ id: number }[]>(page, 'clients.list', { search: 'Amelia Hart' }, 'query');
      ameliaId = amelia!.id;
      const people = await call<{ id: number; name: string }[]>(page, 'users.list', undefined, 'query');
      const diana = people.find((p) => p.name === 'Diana Director')!.id;
      await call(page, 'clients.addNumber', { clientId: ameliaId, phone: '+44 7700 900998' }, 'mutation');
      await call(page, 'inbox.assign', { clientId: ameliaId, userId: diana }, 'mutation');
      // The body is read to its end: an export is recorded once its reader has it (server/export/README.md "Evidence exports").
      const exported = await page.evaluate(async (id) => {
        const res = await fetch(`/api/export/client/${id}.json`);
        await res.text();
        return res.status;
      }, ameliaId);
      expect(exported).toBe(200);
      await context.close();
    });

    it('says what happened in a sentence with names, each about-link opening its page', async () => {
      const { page, context } = await signInDemo(browser, app.url, 'Director');
      await page.goto(`${app.url}/audit`);
      const row = (action: string) => page.locator(`tr[data-action="${action}"]`).first();
      await row('export.create').waitFor();
      expect(await row('export.create').textContent()).toMatch(
        /Diana Director exported Amelia Hart’s chat as JSON \(\d+ messages, [\d.]+ KB, SHA-256 [0-9a-f]{12}…\)/,
      );
      expect(await row('inbox.assign').textContent()).toMatch(/^.*Diana Director took the conversation with Amelia Hart/);
      expect(await row('client.number_add').textContent()).toMatch(/Diana Director added the number \+44 ?7700 ?900998 to Amelia Hart/);
      expect(await row('auth.sign_in').textContent()).toContain('Diana Director signed in');
      // No raw detail anywhere ("bytes: 3706 · format: json"), no "Client 1".
      const table = (await page.locator('table.audit-table').textContent()) ?? '';
      expect(table).not.toMatch(/bytes: |format: |sessionsEnded|Client \d/);
      await row('client.number_add').getByRole('link', { name: 'Amelia Hart' }).click();
      await page.waitForURL(`${app.url}/clients/${ameliaId}`);
      await context.close();
    });

    it('shows the trail head, and Verify the trail walks the chain and says it is unbroken', async () => {
      const { page, context } = await signInDemo(browser, app.url, 'Director');
      await page.goto(`${app.url}/audit`);
      const head = await call<{ id: number; hash: string }>(page, 'audit.head', undefined, 'query');
      const state = page.locator('.audit-head-state');
      await expect.poll(() => state.textContent()).toMatch(new RegExp(`Trail head: event #\\d+.* · hash [0-9a-f]{12}…`));
      expect(Number(/event #(\d+)/.exec((await state.textContent())!)![1])).toBeGreaterThanOrEqual(head.id);
      await page.getByRole('button', { name: 'Verify the trail' }).click();
      const verified = page.getByRole('status').filter({ hasText: /^Verified:/ });
      await verified.waitFor();
      expect(await verified.textContent()).toMatch(/^Verified: [\d,]+ events, unbroken, head #\d+\.$/);
      // The head signed at start (server/audit/audit-checkpoints.ts): counted, the newest named, every one valid.
      expect(await page.locator('.audit-checkpoints').textContent()).toMatch(
        /^Signed checkpoints: [\d,]+, the newest at .+ \(event #\d+\) — all valid\.$/,
      );
      // The check is itself on the trail, named.
      await page.locator('tr[data-action="audit.verify"]', { hasText: 'Diana Director verified the trail' }).first().waitFor();
      await context.close();
    });

    it("narrows to one client by name (her cases' events with hers), and finds an event by the start of its hash", async () => {
      const { page, context } = await signInDemo(browser, app.url, 'Director');
      await page.goto(`${app.url}/audit`);
      await page.locator('tr[data-action]').first().waitFor();
      await page.getByRole('searchbox', { name: 'About' }).fill('Amelia');
      await page.getByRole('list', { name: 'Matching clients and cases' }).getByRole('button', { name: 'Amelia Hart' }).click();
      await page.waitForURL(/subject=client%3A\d+|subject=client:\d+/);
      await expect
        .poll(
          async () => new Set(await page.locator('tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-action')))),
        )
        .toEqual(new Set(['export.create', 'inbox.assign', 'client.number_add']));
      await page.getByRole('button', { name: 'Clear About: Amelia Hart' }).click();

      const [target] = (await call<{ items: { id: number; hash: string }[] }>(page, 'audit.list', { action: 'inbox.assign' }, 'query'))
        .items;
      await page.getByRole('searchbox', { name: 'Hash' }).fill(target!.hash.slice(0, 10).toUpperCase());
      await page.getByRole('button', { name: 'Find' }).click();
      await expect
        .poll(() => page.locator('tr[data-action]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-event'))))
        .toEqual([String(target!.id)]);
      await page.getByRole('searchbox', { name: 'Hash' }).fill('abc');
      await page.getByRole('button', { name: 'Find' }).click();
      await page.getByRole('alert').filter({ hasText: 'at least 6' }).waitFor();
      await context.close();
    });

    it.each([1280, 390])('at %i px: axe finds nothing serious, nothing scrolls sideways, every control is labelled', async (width) => {
      const { page, context } = await signInDemo(browser, app.url, 'Director', { width, height: width > 640 ? 860 : 844, bypassCSP: true });
      await page.goto(`${app.url}/audit`);
      await page.locator('[data-action="export.create"]').first().waitFor();
      await page.locator('.audit-head-state', { hasText: 'Trail head' }).waitFor();
      await page.getByRole('searchbox', { name: 'About' }).fill('Amelia');
      await page.getByRole('list', { name: 'Matching clients and cases' }).waitFor();
      await saveScreenshot(page, `audit-${width}`);
      const { violations } = await axeOn(page);
      expect(
        violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`),
      ).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
      // Every control the keyboard reaches has a name.
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll('main input, main select, main button, .audit-page input, .audit-page select, .audit-page button')]
          .filter(
            (el) => !(el as HTMLElement).innerText?.trim() && !el.getAttribute('aria-label') && !(el as HTMLInputElement).labels?.length,
          )
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unnamed).toEqual([]);
      await page.getByRole('button', { name: 'Verify the trail' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: /^Verified:/ })
        .waitFor();
      await saveScreenshot(page, `audit-${width}-verified`, { fullPage: false });
      await context.close();
    });
  });
});
