import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TAppProcess } from '../support/app-process';
import { hasChromium, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { sql } from '../support/sql';
import { checkBothWidths, HEAVY_TEST_MS } from '../support/check-both-widths';

// Erased is final and quiet (server/records/README.md "Records"): a client erased at their request is
// gone from the Clients list but under its Erased filter, and their page is read-only and says how
// they were erased, with the certificate; a request under a hold names the hold instead of offering Erase.

describe.runIf(hasChromium())('an erased client in Chromium', () => {
  const live = useLiveBrowserSuite();
  let app: TAppProcess;
  let ownerUrl: string;
  let browser: Browser;

  beforeAll(() => {
    ({ app, ownerUrl, browser } = live);
  });

  /** Records a request for `name` on the Records page and opens its decision. */
  const recordRequest = async (page: Page, name: string, note: string) => {
    await page.goto(`${app.url}/records`);
    await page.getByRole('heading', { name: 'Records', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Client' }).selectOption({ label: name });
    await page.getByRole('textbox', { name: 'Note' }).fill(note);
    await page.getByRole('button', { name: 'Record the request' }).click();
    const request = page.locator('.request-row', { hasText: note });
    await request.getByRole('button', { name: `Decide the request of ${name}` }).click();
    return request;
  };

  it(
    'erased at their request: left out of Clients but under Erased, a read-only page saying how, with its certificate; a hold is named up front',
    async () => {
      const [daniela] = await sql<{ id: number }>(ownerUrl, "SELECT id FROM clients WHERE name = 'Daniela Reyes'");
      await sql(ownerUrl, "UPDATE cases SET status = 'closed' WHERE client_id = $1", [daniela!.id]);
      const { context, page } = await signInDemo(browser, app.url, 'Director', { bypassCSP: true });
      try {
        // A client under a hold: Erase is not offered, the hold is named.
        await sql(
          ownerUrl,
          `INSERT INTO legal_holds (client_id, reason, placed_by)
           SELECT c.id, 'Tribunal claim lodged', u.id FROM clients c, users u WHERE c.name = 'Benedict Okafor' AND u.role = 'director' ORDER BY u.id LIMIT 1`,
        );
        const held = await recordRequest(page, 'Benedict Okafor', 'Asked in person to be forgotten');
        await held.getByText(/^Erasing is not possible: a legal hold on this client since .+ \(Tribunal claim lodged\)/).waitFor();
        expect(await held.getByRole('radio', { name: 'Erase everything of Benedict Okafor' }).count()).toBe(0);
        await held.getByText(/^Due /).waitFor();
        await checkBothWidths(page, 'erasure-held');

        const request = await recordRequest(page, 'Daniela Reyes', 'Daniela asked by email');
        await request.getByRole('radio', { name: 'Erase everything of Daniela Reyes' }).check();
        await request.getByRole('button', { name: 'Erase…' }).click();
        await request.getByRole('button', { name: 'Erase for good' }).click();
        await expect
          .poll(
            async () =>
              (
                await sql<{ erased: boolean }>(ownerUrl, 'SELECT erased_at IS NOT NULL AS erased FROM clients WHERE id = $1', [daniela!.id])
              )[0]!.erased,
            {
              timeout: 30_000,
            },
          )
          .toBe(true);

        // Not in the Clients list; under Erased.
        await page.goto(`${app.url}/clients`);
        const list = page.getByRole('region', { name: 'Client list' });
        await list.getByText('Amelia Hart').waitFor();
        expect(await list.getByText('Erased client').count()).toBe(0);
        await page.getByRole('button', { name: 'Erased', exact: true }).click();
        await list.getByRole('link', { name: /Erased client/ }).waitFor();
        expect(await list.getByText('Amelia Hart').count()).toBe(0);
        await checkBothWidths(page, 'clients-erased-filter');

        // The page: how they were erased, the certificate, nothing to write.
        await list.getByRole('link', { name: /Erased client/ }).click();
        const panel = page.getByRole('region', { name: 'Erased client' });
        await panel.getByText(/^Erased on .+ at the client's request\./).waitFor();
        await panel.getByRole('link', { name: 'Destruction certificate (PDF)' }).waitFor();
        expect(await panel.getByRole('link', { name: 'Destruction certificate (PDF)' }).getAttribute('href')).toMatch(
          /^\/api\/retention\/[0-9a-f-]{36}\.pdf$/,
        );
        expect(await page.getByRole('link', { name: 'Message', exact: true }).count()).toBe(0);
        // Their records say how too: not "under the retention policy".
        expect(await page.getByText(/under the retention policy/).count()).toBe(0);
        expect(await page.getByRole('heading', { name: 'Who can see this client' }).count()).toBe(0);
        expect(await page.getByRole('heading', { name: 'Open a case' }).count()).toBe(0);
        expect(await page.getByRole('heading', { name: 'Chat numbers' }).count()).toBe(0);
        await checkBothWidths(page, 'erased-client-page');

        // Their conversation has no composer.
        await page.goto(`${app.url}/inbox/client/${daniela!.id}`);
        await page.getByRole('heading', { name: 'Erased client' }).first().waitFor();
        // Once the conversation has loaded (its messages, or its empty line), there is no composer.
        await page.locator('.bubble-row, p.empty').first().waitFor();
        expect(await page.locator('.thread-compose').count()).toBe(0);
        expect(await page.getByRole('group', { name: 'Write' }).count()).toBe(0);
        // The request's note named her: it went with her name.
        await page.goto(`${app.url}/records`);
        await page.locator('.request-row', { hasText: 'Erased' }).first().waitFor();
        expect(await page.getByText('Daniela asked by email').count()).toBe(0);
      } finally {
        await context.close();
      }
    },
    HEAVY_TEST_MS,
  );
});
