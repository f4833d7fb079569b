import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { TAppProcess } from '../support/app-process';
import { hasChromium, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { sql } from '../support/sql';
import { checkBothWidths, HEAVY_TEST_MS } from '../support/check-both-widths';

// Records as a director meets them (server/records/README.md "Records"): records made old by SQL, previewed,
// destroyed after a typed confirmation, followed to a certificate whose links download; and a legal
// hold placed in the browser keeping its client out of retention and refusing its erasure.
// Every state photographed is also measured by axe-core at a desk's and a phone's width, as in
// accessibility.test.ts; with E2E_SCREENSHOTS=1 they are photographed for a person to look at.

describe.runIf(hasChromium())('records in Chromium', () => {
  // The app on a PostgreSQL this test reaches as its owner: back-dating records is no request's business.
  const live = useLiveBrowserSuite();
  let app: TAppProcess;
  let ownerUrl: string;
  let browser: Browser;

  beforeAll(() => {
    ({ app, ownerUrl, browser } = live);
  });

  const caseNamed = async (reference: string) =>
    (await sql<{ id: number; client_id: number }>(ownerUrl, 'SELECT id, client_id FROM cases WHERE reference = $1', [reference]))[0]!;
  /** Closed seven years ago, its records as old: past the default six years' retention. */
  const makeOld = async (caseId: number) => {
    await sql(ownerUrl, `UPDATE cases SET status = 'closed', closed_at = now() - interval '7 years' WHERE id = $1`, [caseId]);
    await sql(ownerUrl, `UPDATE communications SET created_at = now() - interval '7 years' WHERE case_id = $1`, [caseId]);
  };
  const preview = async (page: Page) => {
    await page.goto(`${app.url}/records`);
    await page.getByRole('heading', { name: 'Records', level: 1 }).waitFor();
    await page.getByRole('button', { name: /^Preview (what is due|again)$/ }).click();
  };

  it(
    'previews what is due, destroys it after a typed confirmation, and hands over a certificate that downloads',
    async () => {
      const lease = await caseNamed('HART-2026-001');
      await makeOld(lease.id);
      const records = await sql<{ id: number }>(ownerUrl, 'SELECT id FROM communications WHERE case_id = $1 ORDER BY id', [lease.id]);
      const files = await sql<{ id: number }>(
        ownerUrl,
        'SELECT a.id FROM attachments a JOIN communications c ON c.id = a.communication_id WHERE c.case_id = $1',
        [lease.id],
      );
      expect(records.length).toBeGreaterThan(3);
      expect(files.length).toBeGreaterThan(0); // the photo of the letter and the client care letter

      // bypassCSP: axe-core is injected as a script, which the app's CSP rightly forbids.
      const { context, page } = await signInDemo(browser, app.url, 'Director', { bypassCSP: true });
      try {
        await preview(page);
        const summary = page.locator('.preview-summary');
        await expect.poll(() => summary.textContent()).toContain(`${records.length} records, ${files.length} files`);
        expect(await summary.textContent()).toMatch(/1 case, 0 clients due for destruction: kept 6 years after a case closed/);
        const due = page.getByRole('list', { name: 'Clients and cases due' });
        await due.getByRole('link', { name: /HART-2026-001/ }).waitFor();
        await checkBothWidths(page, 'records-preview');

        await page.getByRole('button', { name: 'Destroy these records' }).click();
        const destroy = page.getByRole('button', { name: 'Destroy for good' });
        expect(await destroy.isDisabled()).toBe(true); // nothing is destroyed on one stray click
        await expect.poll(() => page.getByText('This cannot be undone.').count()).toBe(1);
        await page.getByRole('textbox', { name: 'Type “destroy” to confirm' }).fill('destroy');
        await checkBothWidths(page, 'records-confirm');
        await destroy.click();

        // Progress from the batch, read every second until the worker has finished it.
        const finished = page.locator('.batch-finished');
        await finished.waitFor({ timeout: 30_000 });
        expect(await finished.textContent()).toContain(`Destroyed: ${records.length} records, ${files.length} files`);
        expect(await finished.textContent()).toContain('Nothing was left out.');
        const sha256 = (await page.getByTestId('certificate-sha256').textContent())!;
        expect(sha256).toMatch(/^[0-9a-f]{64}$/);
        const pdfHref = (await page.getByRole('link', { name: 'Certificate (PDF)' }).getAttribute('href'))!;
        const jsonHref = (await page.getByRole('link', { name: 'Certificate (JSON)' }).getAttribute('href'))!;
        expect(pdfHref).toMatch(/^\/api\/retention\/[0-9a-f-]{36}\.pdf$/);

        // The links download what they say, with this session (the certificate is for directors).
        const fetched = await page.evaluate(
          async ([pdf, json]) => {
            const pdfRes = await fetch(pdf!);
            const head = new TextDecoder().decode((await pdfRes.arrayBuffer()).slice(0, 5));
            const jsonRes = await fetch(json!);
            return { pdfStatus: pdfRes.status, head, jsonStatus: jsonRes.status, json: await jsonRes.text() };
          },
          [pdfHref, jsonHref],
        );
        expect(fetched.pdfStatus).toBe(200);
        expect(fetched.head).toBe('%PDF-');
        expect(fetched.jsonStatus).toBe(200);
        expect(createHash('sha256').update(fetched.json).digest('hex')).toBe(sha256);
        const certificate = JSON.parse(fetched.json) as { items: { kind: string; id: number }[] };
        const ids = (kind: string) =>
          certificate.items
            .filter((i) => i.kind === kind)
            .map((i) => i.id)
            .sort((a, b) => a - b);
        expect(ids('record')).toEqual(records.map((r) => r.id));
        expect(ids('file')).toEqual(files.map((f) => f.id).sort((a, b) => a - b));
        expect(ids('case')).toEqual([lease.id]);

        // The history says who approved it, with its certificate.
        const row = page.locator('.records-table tr[data-state="done"]').first();
        expect(await row.textContent()).toContain('Diana Director');
        await row.getByRole('link', { name: /\(PDF\)$/ }).waitFor();
        await checkBothWidths(page, 'records-destroyed');

        // What was erased says so where it was: in the case, its timeline and the conversation.
        await page.goto(`${app.url}/cases/${lease.id}`);
        await page.getByRole('heading', { name: /^Erased under the retention policy on / }).waitFor();
        const timeline = page.getByRole('list', { name: 'Timeline' });
        await timeline.waitFor();
        await expect.poll(() => timeline.getByText(/^Erased under the retention policy on /).count()).toBe(records.length);
        expect(await timeline.getByText('File erased').count()).toBe(files.length);
        expect(await timeline.locator('img').count()).toBe(0); // no broken picture
        await checkBothWidths(page, 'records-erased-case');

        await page.goto(`${app.url}/inbox/client/${lease.client_id}`);
        await page.getByRole('list', { name: 'Messages' }).waitFor();
        const erasedBubbles = page.locator('.bubble-row', { hasText: 'Erased under the retention policy on' });
        await erasedBubbles.first().waitFor();
        expect(await page.locator('.bubble-row', { hasText: 'did the letting agent reply' }).count()).toBe(0);
        await checkBothWidths(page, 'records-erased-thread');
      } finally {
        await context.close();
      }
    },
    HEAVY_TEST_MS,
  );

  it(
    'keeps a client on legal hold out of retention and refuses their erasure, saying why',
    async () => {
      const purchase = await caseNamed('MART-2026-001'); // Chloe Martin's
      const review = await caseNamed('NOVA-2026-001'); // Emily Novak's
      await makeOld(purchase.id);
      const { context, page } = await signInDemo(browser, app.url, 'Director', { bypassCSP: true });
      try {
        // Closed in the browser; then back-dated, as if that was seven years ago.
        await page.goto(`${app.url}/cases/${review.id}`);
        await page.getByRole('button', { name: 'Close case' }).click();
        await page.getByText(/^Closed on /).waitFor();
        await page.getByRole('button', { name: 'Reopen case' }).waitFor();
        await makeOld(review.id);

        // The hold, placed on the client's page.
        await page.goto(`${app.url}/clients/${purchase.client_id}`);
        await page.getByRole('button', { name: 'Place legal hold' }).click();
        await page.getByRole('textbox', { name: 'Reason for the hold' }).fill('Boundary dispute with the seller threatened');
        await page.getByRole('button', { name: 'Place legal hold' }).click();
        const banner = page.getByRole('region', { name: 'Legal hold' });
        await banner.waitFor();
        expect(await banner.textContent()).toMatch(
          /On legal hold since .+: Boundary dispute with the seller threatened — placed by Diana Director/,
        );
        await checkBothWidths(page, 'records-hold-client');
        // Its case says it is covered too, by its client's hold.
        await page.goto(`${app.url}/cases/${purchase.id}`);
        expect(await page.getByRole('region', { name: 'Legal hold' }).textContent()).toContain(
          'On legal hold with its client Chloe Martin',
        );
        await checkBothWidths(page, 'records-hold-case');

        // Retention leaves the held client's case out; the other old case is in.
        await preview(page);
        const due = page.getByRole('list', { name: 'Clients and cases due' });
        await due.getByRole('link', { name: /NOVA-2026-001/ }).waitFor();
        expect(await due.getByRole('link', { name: /MART-2026-001/ }).count()).toBe(0);
        expect(await page.locator('.preview-summary').textContent()).toMatch(/^\d+ records?, \d+ files? \(.+\), 1 case, /);
        // The live hold is listed with its reason and a way to release it.
        const holds = page.getByRole('list', { name: 'Legal holds' });
        expect(await holds.textContent()).toContain('Boundary dispute with the seller threatened');
        await holds.getByRole('button', { name: 'Release the hold on Chloe Martin' }).waitFor();

        // An erasure request for the held client: Erase is not offered, and the hold is named up front.
        await page.getByRole('combobox', { name: 'Client' }).selectOption({ label: 'Chloe Martin' });
        await page.getByRole('textbox', { name: 'Note' }).fill('Asked by email to be forgotten');
        await page.getByRole('button', { name: 'Record the request' }).click();
        const request = page.locator('.request-row', { hasText: 'Asked by email to be forgotten' });
        await request.getByRole('button', { name: 'Decide the request of Chloe Martin' }).click();
        await request
          .getByText(/^Erasing is not possible: a legal hold on this client since .+ \(Boundary dispute with the seller threatened\)/)
          .waitFor();
        expect(await request.getByRole('radio', { name: 'Erase everything of Chloe Martin' }).count()).toBe(0);
        await checkBothWidths(page, 'records-erasure-refused');

        // Refused on the grounds of the hold instead, as the message says.
        await request.getByRole('radio', { name: 'A legal hold covers it' }).check();
        await request.getByRole('button', { name: 'Refuse the request' }).click();
        await expect
          .poll(() => request.locator('.decision').textContent())
          .toMatch(/^Refused: A legal hold covers it · decided by Diana Director/);
        await checkBothWidths(page, 'records-page');
      } finally {
        await context.close();
      }
    },
    HEAVY_TEST_MS,
  );
});
