import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { axeOn } from '../support/axe';

// The court bundle as a director meets it (server/export/README.md "Evidence exports"): downloaded from a client's
// page by the browser itself, its fingerprint shown on the card once the browser has it, then handed
// back to Verify a copy on the Audit page — the bundle as it came is genuine, file by file; a copy
// with one exhibit changed is altered, and says which; an exhibit taken out of it is a file the firm
// holds; one forged with its manifest edited to match is altered all the same.
const AMELIA = '447700900123';
const CHLOE = '447700900789';
// A 2×2 PNG (red, green / blue, white) and a small PDF, sent by the client through the simulator.
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

type TManifest = { files: { path: string; sha256: string; bytes: number }[]; missing?: unknown[] };

/** Every entry of a ZIP by name (a test's bundle is small). */
function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return zip.readEntry();
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.readEntry();
    });
  });
}

function writeZip(entries: Map<string, Buffer>, file: string): Promise<void> {
  const zip = new yazl.ZipFile();
  for (const [name, bytes] of entries) zip.addBuffer(bytes, name);
  zip.end();
  return pipeline(zip.outputStream, createWriteStream(file));
}

/** A tRPC call from inside the signed-in page (its cookie, its origin), as the SPA makes it. */
async function call<T>(page: Page, procedure: string, input: unknown, kind: 'query' | 'mutation'): Promise<T> {
  return page.evaluate(
    async ({ procedure, input, kind }) => {
      const body = JSON.stringify({ json: input });
      const res =
        kind === 'query'
          ? await fetch(`/trpc/${procedure}?input=${encodeURIComponent(body)}`)
          : await fetch(`/trpc/${procedure}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const answer = (await res.json()) as { result?: { data: { json: unknown } }; error?: unknown };
      if (!answer.result) throw new Error(`${procedure}: ${JSON.stringify(answer.error)}`);
      return answer.result.data.json;
    },
    { procedure, input, kind },
  ) as Promise<T>;
}

/** The section at both widths, photographed, and measured by axe-core (nothing serious, nothing sideways). */
async function shootAndMeasure(page: Page, section: Locator, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
    // From the top of the page, clipped to the section: a shot scrolled to it draws the sticky top bar over it.
    await page.evaluate(() => window.scrollTo(0, 0));
    const box = (await section.boundingBox())!;
    await saveScreenshot(page, `${name}-${width}`, { clip: box });
    const { violations } = await axeOn(page, `#${await section.getAttribute('id')}`);
    expect(
      violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`),
      `axe on ${name} at ${width} px`,
    ).toEqual([]);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(wide, `${name} scrolls sideways at ${width} px`).toBe(0);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** The answer for the file just checked, once it is there: named after the file, so an earlier answer is never taken for it. */
async function answerFor(section: Locator, fileName: string, headline: string, timeout = 60_000): Promise<Locator> {
  const answer = section.getByRole('article', { name: `Check of ${fileName}` });
  await answer.waitFor({ timeout });
  expect(await answer.locator('.verify-headline').textContent()).toContain(headline);
  return answer;
}

describe.runIf(hasChromium())('the court bundle and Verify a copy, in Chromium', () => {
  const live = useLiveBrowserSuite();
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  let bundle: string;
  let entries: Map<string, Buffer>;
  let manifest: TManifest;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bundle-'));
    // Beside the demo's photo and letter: a photo and a named document from the client.
    await live.sim.sendInboundKind({
      kind: 'image',
      from: AMELIA,
      name: 'Amelia',
      bytesBase64: PHOTO.toString('base64'),
      mimeType: 'image/png',
      caption: 'Photo of the meter',
    });
    await live.sim.sendInboundKind({
      kind: 'document',
      from: AMELIA,
      name: 'Amelia',
      bytesBase64: PDF.toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'Tenancy agreement.pdf',
      caption: 'Signed',
    });
    // bypassCSP: axe-core is injected as a script, which the app's CSP rightly forbids.
    ({ context, page } = await signInDemo(live.browser, live.app.url, 'Director', { acceptDownloads: true, bypassCSP: true }));
  });
  afterAll(async () => {
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a director downloads the bundle from the client page: a ZIP holding the transcript, the JSON and every file, each in the manifest', async () => {
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    // Both files from the simulator stored (downloaded from the provider by the media queue) before the bundle is asked for.
    const documents = page.getByRole('region', { name: 'Documents' });
    await documents.getByRole('link', { name: 'Download Tenancy agreement.pdf' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => documents.locator('tr[data-state="pending"]').count(), { timeout: 20_000 }).toBe(0);

    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Export the chat' }) });
    await card.getByText('every file as a numbered exhibit').waitFor();
    // Every file is held: nothing to warn about.
    expect(await card.getByTestId('bundle-files-not-held').count()).toBe(0);
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      card.getByRole('button', { name: 'Court bundle (ZIP)' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.zip$/);
    bundle = path.join(dir, download.suggestedFilename());
    await download.saveAs(bundle);
    const bytes = await readFile(bundle);
    // The card learns what the browser was given (the ticket's cookie) and shows its fingerprint: the file's own.
    const saved = card.getByRole('status').filter({ hasText: 'Saved by your browser' });
    await saved.waitFor({ timeout: 30_000 });
    expect(await saved.getByRole('textbox', { name: 'SHA-256 of the saved court bundle' }).inputValue()).toBe(sha256(bytes));
    expect(await saved.textContent()).toContain(`(${new Intl.NumberFormat('en-GB').format(bytes.length)} bytes`);
    await saved.getByText('Keep the fingerprint with the file.').waitFor();
    await saved.getByRole('button', { name: 'Copy' }).waitFor();
    // Offered again, and the cookie read is gone.
    expect(await card.getByRole('button', { name: 'Court bundle (ZIP)' }).getAttribute('aria-disabled')).not.toBe('true');
    expect(await page.evaluate(() => document.cookie)).not.toContain('firm_chat_export_');
    await card.evaluate((el) => el.setAttribute('id', 'export-card')); // for the photograph and axe
    await shootAndMeasure(page, card, 'export-panel');

    entries = await readZip(bundle);
    for (const part of ['transcript.pdf', 'messages.json', 'manifest.json']) expect(entries.has(part), part).toBe(true);
    manifest = JSON.parse(entries.get('manifest.json')!.toString('utf8')) as TManifest;
    const listed = manifest.files.map((f) => f.path).sort();
    const exhibits = [...entries.keys()].filter((name) => name.startsWith('exhibits/')).sort();
    expect(listed).toEqual(['messages.json', 'transcript.pdf', ...exhibits].sort());
    for (const exhibit of exhibits) expect(exhibit).toMatch(/^exhibits\/\d{3}-./);
    for (const file of manifest.files) {
      expect(sha256(entries.get(file.path)!), file.path).toBe(file.sha256);
      expect(entries.get(file.path)!.length, file.path).toBe(file.bytes);
    }
    // The client's photo and document are there byte for byte, and the demo's two files with them.
    const hashes = exhibits.map((name) => sha256(entries.get(name)!));
    expect(hashes).toContain(sha256(PHOTO));
    expect(hashes).toContain(sha256(PDF));
    expect(exhibits.length).toBeGreaterThanOrEqual(4);
    expect(exhibits.some((name) => name.endsWith('-Tenancy agreement.pdf'))).toBe(true);

    // "Verify a copy" on the export card opens the Audit page at the section.
    await saved.getByRole('link', { name: 'Verify a copy' }).click();
    await page.waitForURL(/\/audit#verify-copy$/);
    await page.getByRole('heading', { name: 'Verify a copy' }).waitFor();
  });

  it('Verify a copy: the bundle as downloaded is genuine, every file ✓, and names its export', async () => {
    const section = page.locator('#verify-copy');
    await section.getByText('Drop an export (ZIP, PDF or JSON) to check it').waitFor();
    // On a phone there is nothing to drop a file from: the zone offers the choice alone.
    await page.setViewportSize({ width: 390, height: 844 });
    await section.getByText('Choose an export (ZIP, PDF or JSON) to check it').waitFor();
    expect(await section.getByText('Drop an export (ZIP, PDF or JSON) to check it').isVisible()).toBe(false);
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(await section.getByText('Choose an export (ZIP, PDF or JSON) to check it').isVisible()).toBe(false);
    await section.getByRole('button', { name: 'Choose an export to check' }).waitFor();
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(bundle);
    const headline = section.getByRole('heading', { name: 'This copy is genuine' });
    await headline.waitFor({ timeout: 60_000 });
    expect(await headline.evaluate((el) => el === document.activeElement)).toBe(true); // the reader is taken to it

    const rows = section.locator('.verify-files tbody tr');
    expect(await rows.count()).toBe(manifest.files.length);
    expect(new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-check'))))).toEqual(new Set(['matches']));
    for (const file of manifest.files) {
      const row = rows.filter({ hasText: file.path });
      expect(await row.locator('.verify-check').textContent(), file.path).toBe('✓ matches');
    }
    const bytes = await readFile(bundle);
    await section.locator('.verify-facts').getByText(sha256(bytes), { exact: true }).waitFor();
    await section.getByText('The court bundle (ZIP) of').waitFor();
    const clientLink = section.getByRole('link', { name: 'Amelia Hart' });
    expect(await clientLink.getAttribute('href')).toMatch(/^\/clients\/\d+$/);
    const event = section.getByRole('link', { name: /^Event #\d+$/ });
    const eventId = Number(/\d+/.exec((await event.textContent())!)![0]);
    await shootAndMeasure(page, section, 'verify-genuine');

    // The trail has both: the bundle exported (with its exhibits) and the copy verified, linked to the export's event.
    const trail = page.getByRole('region', { name: 'Audit events' });
    const exported = trail.locator(`tr[data-event="${eventId}"]`);
    await exported.waitFor();
    expect(await exported.textContent()).toMatch(/Diana Director exported the court bundle of Amelia Hart: \d+ exhibits, \d+ messages/);
    const verified = trail.locator('tr[data-action="export.verify"]').first();
    await verified.waitFor();
    expect(await verified.textContent()).toContain('Diana Director verified a copy: genuine');
    expect(await verified.getByRole('link', { name: `export event #${eventId}` }).getAttribute('href')).toBe(`/audit?from=${eventId}`);
  });

  it('a copy with one exhibit changed is altered: its row says ✗ differs, the others still match', async () => {
    const changed = [...entries.keys()].find((name) => name.startsWith('exhibits/') && sha256(entries.get(name)!) === sha256(PDF))!;
    const altered = new Map(entries);
    altered.set(changed, Buffer.concat([PDF, Buffer.from('% one line added after the export\n')]));
    const copy = path.join(dir, 'altered copy.zip');
    await writeZip(altered, copy);

    // Dropped on the zone this time, as a person drags it from their files.
    const section = page.locator('#verify-copy');
    const dropped = await page.evaluateHandle(
      ({ base64, name }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: 'application/zip' }));
        return transfer;
      },
      { base64: (await readFile(copy)).toString('base64'), name: path.basename(copy) },
    );
    await section.locator('.verify-drop').dispatchEvent('dragover', { dataTransfer: dropped });
    await section.locator('.verify-drop').dispatchEvent('drop', { dataTransfer: dropped });
    await section.getByRole('heading', { name: 'This copy has been altered' }).waitFor({ timeout: 60_000 });
    const rows = section.locator('.verify-files tbody tr');
    const row = rows.filter({ hasText: changed });
    expect(await row.getAttribute('data-check')).toBe('differs');
    expect(await row.locator('.verify-check').textContent()).toBe('✗ differs');
    // What is wrong, in words, and both fingerprints in full without hovering: the manifest's and the one received.
    await row.getByText('Differs from the manifest').waitFor();
    await row.getByText(sha256(PDF), { exact: true }).waitFor();
    await row.getByText(sha256(altered.get(changed)!), { exact: true }).waitFor();
    await section.getByText(`1 of ${manifest.files.length} files listed does not match.`).waitFor();
    expect(await section.locator('.verify-files tbody tr[data-check="matches"]').count()).toBe(manifest.files.length - 1);
    await section.getByText('altered copy.zip').first().waitFor();
    await shootAndMeasure(page, section, 'verify-altered');
  });

  it('an exhibit taken out of the bundle is a file the firm holds, not a signed export: identical to the one Amelia Hart sent, her page linked', async () => {
    const exhibit = [...entries.keys()].find((name) => name.endsWith('-Tenancy agreement.pdf'))!;
    const taken = path.join(dir, path.basename(exhibit));
    await writeFile(taken, entries.get(exhibit)!);
    const section = page.locator('#verify-copy');
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(taken);
    const answer = await answerFor(section, path.basename(taken), 'The firm holds this file; it is not an export');
    const sentence = answer.locator('.verify-stored');
    await sentence.waitFor();
    expect(await sentence.textContent()).toMatch(
      /^This file is identical to Tenancy agreement\.pdf, which Amelia Hart sent to the firm on .+ \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\)/,
    );
    expect(await sentence.getByRole('link', { name: 'Amelia Hart' }).getAttribute('href')).toMatch(/^\/clients\/\d+$/);
    expect(await answer.getByText('No export in the audit trail that you may see has this fingerprint.').count()).toBe(0);
    await shootAndMeasure(page, section, 'verify-stored-file');
    const verified = page.getByRole('region', { name: 'Audit events' }).locator('tr[data-action="export.verify"]').first();
    await expect.poll(() => verified.textContent()).toContain('verified a copy: unknown — identical to a file the firm holds');
  });

  it('a bundle forged with one exhibit changed and its manifest edited to match is altered, and names its export', async () => {
    const changed = [...entries.keys()].find((name) => name.startsWith('exhibits/') && sha256(entries.get(name)!) === sha256(PHOTO))!;
    const forged = new Map(entries);
    const replacement = Buffer.concat([PDF, Buffer.from('% not the photo the client sent\n')]);
    forged.set(changed, replacement);
    const edited = {
      ...manifest,
      files: manifest.files.map((f) => (f.path === changed ? { ...f, sha256: sha256(replacement), bytes: replacement.length } : f)),
    };
    forged.set('manifest.json', Buffer.from(JSON.stringify(edited, null, 2)));
    const copy = path.join(dir, 'forged copy.zip');
    await writeZip(forged, copy);

    const section = page.locator('#verify-copy');
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(copy);
    const answer = await answerFor(section, 'forged copy.zip', 'This copy has been altered');
    // The export it came from is named, found by the parts the forger left alone.
    await answer.getByText('The court bundle (ZIP) of').waitFor();
    const row = answer.locator('.verify-files tbody tr').filter({ hasText: changed });
    expect(await row.getAttribute('data-check')).toBe('differs');
    expect(await row.locator('.verify-check').textContent()).toBe('✗ differs');
    await row.getByText(/messages\.json recorded/).waitFor();
    // The manifest's line and the bytes agree (the forger edited both): the row shows the hash received all the same.
    expect(await row.getByText(sha256(replacement), { exact: true }).count()).toBe(2);
    await shootAndMeasure(page, section, 'verify-forged');
  });

  it("a ZIP with a manifest of its own that the trail does not know: the table says it is the ZIP's claim, not confirmed", async () => {
    const made = new Map<string, Buffer>([
      ['transcript.pdf', Buffer.concat([PDF, randomBytes(32)])],
      ['exhibits/001-Invoice.pdf', Buffer.concat([PDF, randomBytes(32)])],
    ]);
    made.set(
      'manifest.json',
      Buffer.from(
        JSON.stringify({
          subject: { type: 'client', id: 1, name: 'Amelia Hart' },
          exportedAt: '2026-01-15T09:00:00.000Z',
          exportedBy: { id: 1, name: 'Someone Else' },
          auditHead: { id: 1, hash: '0'.repeat(64) },
          files: [...made].map(([name, bytes]) => ({ path: name, sha256: sha256(bytes), bytes: bytes.length })),
          missing: [],
        }),
      ),
    );
    const copy = path.join(dir, 'homemade bundle.zip');
    await writeZip(made, copy);
    const section = page.locator('#verify-copy');
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(copy);
    const answer = await answerFor(section, 'homemade bundle.zip', 'Firm Chat has no record of this file');
    await answer.getByRole('heading', { name: 'What the ZIP’s own manifest says (not confirmed by the audit trail)' }).waitFor();
    expect(await answer.getByRole('heading', { name: 'Files in the ZIP, checked against its manifest' }).count()).toBe(0);
    await answer.getByText(/The manifest says it was exported on .+ by Someone Else .*; the audit trail does not confirm it\./).waitFor();
    // Agreeing with a manifest nobody vouches for is no tick.
    expect(await answer.locator('.verify-check').allTextContents()).toEqual(['= as listed', '= as listed']);
    await shootAndMeasure(page, section, 'verify-unknown-manifest');
    // The check names no record: About says so.
    const verified = page.getByRole('region', { name: 'Audit events' }).locator('tr[data-action="export.verify"]').first();
    await expect.poll(() => verified.textContent()).toContain('verified a copy: unknown');
    expect(await verified.locator('.audit-about-cell').textContent()).toBe('—');
  });

  it('a large copy shows its upload as it goes and can be cancelled (nothing checked, nothing recorded); a stranger file is unknown', async () => {
    const big = path.join(dir, 'large scan.bin');
    await writeFile(big, randomBytes(6 * 1024 * 1024));
    // Verifications on the trail (other events, a checkpoint or a sign-in, may come meanwhile).
    const verifications = async () =>
      (await call<{ items: { action: string }[] }>(page, 'audit.list', { limit: 100 }, 'query')).items.filter(
        (e) => e.action === 'export.verify',
      ).length;
    const before = await verifications();
    // The browser's own network throttling: about 20 seconds to send it.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 300 * 1024,
    });
    const section = page.locator('#verify-copy');
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(big);
    const progress = section.getByRole('progressbar', { name: 'Sending large scan.bin' });
    await expect.poll(async () => Number(await progress.getAttribute('value')), { timeout: 20_000 }).toBeGreaterThan(0);
    expect(Number(await progress.getAttribute('value'))).toBeLessThan(6 * 1024 * 1024);
    await section.getByText(/^Sending large scan\.bin: .+ of 6\.0 MB$/).waitFor();
    await shootAndMeasure(page, section, 'verify-sending');
    await section.getByRole('button', { name: 'Cancel' }).click();
    await section.getByRole('status').filter({ hasText: 'Cancelled: large scan.bin was not checked.' }).waitFor();
    expect(await progress.count()).toBe(0);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
    // The server saw the upload stop: no verification on the trail.
    expect(await verifications()).toBe(before);

    // A file that is no export of the firm's: said so, plainly.
    const stranger = path.join(dir, 'Chat record - someone else.pdf');
    await writeFile(stranger, Buffer.concat([PDF, randomBytes(64)]));
    await section.getByLabel('Choose an export to check', { exact: true }).setInputFiles(stranger);
    await section.getByRole('heading', { name: 'Firm Chat has no record of this file' }).waitFor({ timeout: 30_000 });
    await section.getByText('No export in the audit trail that you may see has this fingerprint.').waitFor();
    await shootAndMeasure(page, section, 'verify-unknown');
  });

  it('a bundle refused by the server says why on the page (here: a wall put up while the page was open)', async () => {
    // Sam, staff, on Benedict Okafor's page. Once it shows, its reads are held back (never answered), so
    // the page cannot learn of the wall by itself and close before the bundle's own request meets it.
    const staff = await signInDemo(live.browser, live.app.url, 'Staff', { acceptDownloads: true });
    await staff.page.goto(`${live.app.url}/clients`);
    await staff.page.getByRole('link', { name: /Benedict Okafor/ }).click();
    const card = staff.page.locator('section', { has: staff.page.getByRole('heading', { name: 'Export the chat' }) });
    await card.getByRole('button', { name: 'Court bundle (ZIP)' }).waitFor();
    await staff.context.route('**/trpc/**', () => new Promise<void>(() => {}));
    const clientId = Number(/\/clients\/(\d+)/.exec(staff.page.url())![1]);
    const people = await call<{ id: number; name: string }[]>(page, 'users.list', undefined, 'query');
    const sam = people.find((p) => p.name === 'Sam Staff')!;
    await call(page, 'access.screen', { clientId, userId: sam.id, reason: 'Acted for the landlord' }, 'mutation');

    await card.getByRole('button', { name: 'Court bundle (ZIP)' }).click();
    const refusal = card.getByRole('alert');
    await refusal.waitFor({ timeout: 30_000 });
    // The server's own sentence, read from the download's frame.
    expect(await refusal.textContent()).toMatch(/could not be prepared: That client does not exist\./);
    await saveScreenshot(card, 'export-refused-1280');
    // Offered again (once the reason is sorted out).
    expect(await card.getByRole('button', { name: 'Court bundle (ZIP)' }).getAttribute('aria-disabled')).not.toBe('true');
    await staff.context.close();
    await call(page, 'access.unscreen', { clientId, userId: sam.id }, 'mutation');
  });

  it('warns before a bundle misses files: one the firm does not hold yet is counted under the button', async () => {
    // A document whose announced checksum is wrong: the firm's download of it fails, and is tried again later.
    await live.sim.sendInboundKind({
      kind: 'document',
      from: CHLOE,
      name: 'Chloe',
      bytesBase64: PDF.toString('base64'),
      mimeType: 'application/pdf',
      fileName: 'Receipt.pdf',
      sha256: sha256(Buffer.from('not these bytes')),
    });
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Chloe Martin/ }).click();
    const card = page.locator('section', { has: page.getByRole('heading', { name: 'Export the chat' }) });
    const warning = card.getByTestId('bundle-files-not-held');
    await warning.waitFor({ timeout: 30_000 });
    expect(await warning.textContent()).toContain(
      '1 file is not held by the firm yet (still downloading or failed): it will be listed as missing in the bundle.',
    );
    await card.evaluate((el) => el.setAttribute('id', 'export-card-warning'));
    await shootAndMeasure(page, card, 'export-warning');
  });
});
