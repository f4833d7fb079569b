import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useLiveBrowserSuite } from '../support/live-app';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';

const AMELIA = '447700900123';
// A 2×2 PNG (red, green / blue, white).
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.runIf(hasChromium())('files in the thread, in Chromium, live mode against the provider simulator', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [500, 1000, 1500], outOfOrderRate: 0 });

  async function openAmelia(width = 1280): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = await signInDemo(live.browser, live.app.url, 'Staff', { width, height: 900, acceptDownloads: true });
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('link', { name: 'Message' }).click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    return { context, page };
  }

  it('a photo and a PDF from the client appear in the open thread and download with the bytes sent', async () => {
    const { page, context } = await openAmelia();
    await live.sim.sendInboundKind({
      kind: 'image',
      from: AMELIA,
      name: 'Amelia',
      bytesBase64: PHOTO.toString('base64'),
      mimeType: 'image/png',
      caption: 'Photo of the letter',
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

    const photo = page.locator('.bubble-row', { hasText: 'Photo of the letter' });
    const img = photo.getByRole('img', { name: 'Photo from the conversation' });
    await img.waitFor({ timeout: 15_000 });
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth), { timeout: 10_000 }).toBe(2);
    const shown = await page.evaluate(
      async (src) => {
        const res = await fetch(src);
        return { status: res.status, bytes: Array.from(new Uint8Array(await res.arrayBuffer())) };
      },
      (await img.getAttribute('src'))!,
    );
    expect(shown.status).toBe(200);
    expect(sha256(Buffer.from(shown.bytes))).toBe(sha256(PHOTO));

    const pdf = page.locator('.bubble-row', { hasText: 'Tenancy agreement.pdf' });
    const download = pdf.getByRole('link', { name: 'Download Tenancy agreement.pdf' });
    await download.waitFor({ timeout: 15_000 });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toBe('Tenancy agreement.pdf');
    const saved = path.join(await mkdtemp(path.join(os.tmpdir(), 'firm-chat-dl-')), 'got.pdf');
    await file.saveAs(saved);
    const { readFile } = await import('node:fs/promises');
    expect(sha256(await readFile(saved))).toBe(sha256(PDF));
    await saveScreenshot(page, 'thread-files');
    await context.close();
  });

  it('staff attach a PDF, send it with a caption, and watch its ticks reach read', async () => {
    const { page, context } = await openAmelia();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-up-'));
    const local = path.join(dir, 'Engagement letter.pdf');
    await writeFile(local, PDF);
    await page.locator('input[type="file"]').setInputFiles(local);
    await page.getByRole('group', { name: 'File to send' }).getByText('Engagement letter.pdf').waitFor();
    await page.getByRole('textbox', { name: 'Caption' }).fill('Please sign and return');
    await saveScreenshot(page, 'composer-file');
    await page.getByRole('button', { name: 'Send file' }).click();

    const bubble = page.locator('.bubble-row.out', { hasText: 'Please sign and return' });
    await bubble.getByText('Engagement letter.pdf').waitFor();
    await bubble.getByRole('img', { name: 'Read' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('group', { name: 'File to send' }).count()).toBe(0);
    const upload = live.sim.requests.find((r) => r.path === '/media');
    expect(upload?.body).toMatchObject({ fileName: 'Engagement letter.pdf', sha256: sha256(PDF) });
    await saveScreenshot(page, 'thread-sent-file');

    // The client's Documents list holds both directions.
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    const documents = page.getByRole('region', { name: 'Documents' });
    await documents.getByRole('link', { name: 'Download Engagement letter.pdf' }).waitFor();
    await documents.getByRole('link', { name: 'Download Tenancy agreement.pdf' }).waitFor();
    await saveScreenshot(page, 'client-documents');
    await context.close();
  });

  it('every other kind reads as a person expects: a place, contacts, a reply, a reaction, an edit and a deletion', async () => {
    const { page, context } = await openAmelia();
    const original = await live.sim.sendInboundKind({ kind: 'text', from: AMELIA, body: 'I can come on Tuesday at 10' });
    await live.sim.sendInboundKind({
      kind: 'location',
      from: AMELIA,
      latitude: 51.5138,
      longitude: -0.0984,
      name: 'Ashdown & Vale',
      address: '1 Fleet Street, London',
    });
    await live.sim.sendInboundKind({ kind: 'contacts', from: AMELIA, contacts: [{ name: 'Tom Hart', phones: ['+44 7700 900321'] }] });
    await live.sim.sendInboundKind({ kind: 'reply', from: AMELIA, body: 'Actually, 11 would be better', contextId: original.id });
    await live.sim.sendInboundKind({ kind: 'reaction', from: AMELIA, targetId: original.id, emoji: '👍' });
    const typo = await live.sim.sendInboundKind({ kind: 'text', from: AMELIA, body: 'My adress is 12 Elm Road' });
    await live.sim.sendInboundKind({ kind: 'edit', from: AMELIA, targetId: typo.id, body: 'My address is 12 Elm Road' });
    const regret = await live.sim.sendInboundKind({ kind: 'text', from: AMELIA, body: 'Ignore the last bit' });
    await live.sim.sendInboundKind({ kind: 'revoke', from: AMELIA, targetId: regret.id });

    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByRole('link', { name: 'Open map' }).waitFor({ timeout: 15_000 });
    expect(await messages.getByRole('link', { name: 'Open map' }).getAttribute('href')).toContain('mlat=51.5138&mlon=-0.0984');
    await messages.getByRole('list', { name: 'Shared contacts' }).getByText('+44 7700 900321').waitFor();
    const reply = page.locator('.bubble-row', { hasText: 'Actually, 11 would be better' });
    await reply.getByRole('button', { name: /Reply to: I can come on Tuesday at 10/ }).waitFor();
    await page
      .locator('.bubble-row', { hasText: 'I can come on Tuesday at 10' })
      .first()
      .getByRole('list', { name: 'Reactions' })
      .waitFor();
    const edited = page.locator('.bubble-row', { hasText: 'My address is 12 Elm Road' });
    await edited.getByText('edited').click();
    await edited.getByText('My adress is 12 Elm Road').waitFor();
    await page.locator('.bubble-row', { hasText: 'Ignore the last bit' }).getByText('Deleted by the client').waitFor();
    await saveScreenshot(page, 'thread-every-kind');
    await context.close();
  });

  it('a photo opens full size and closes with Escape; a file dropped on the conversation is attached; the client file shows both directions', async () => {
    const { page, context } = await openAmelia();
    const caption = `Photo of the meter (${Date.now()})`;
    await live.sim.sendInboundKind({
      kind: 'image',
      from: AMELIA,
      name: 'Amelia',
      bytesBase64: PHOTO.toString('base64'),
      mimeType: 'image/png',
      caption,
    });
    const thumbnail = page.locator('.bubble-row', { hasText: caption }).getByRole('link', { name: 'Photo from the conversation' });
    await thumbnail.waitFor({ timeout: 15_000 });
    await thumbnail.click();
    const lightbox = page.getByRole('dialog', { name: `Photo: ${caption}` });
    await lightbox.waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Close');
    await page.keyboard.press('Escape');
    await lightbox.waitFor({ state: 'hidden' });

    // Dropped anywhere on the conversation (not only the composer): the drop target states the limits.
    const dropped = await page.evaluateHandle((bytes) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'Meter reading.pdf', { type: 'application/pdf' }));
      return data;
    }, Array.from(PDF));
    await page.dispatchEvent('.messages', 'dragover', { dataTransfer: dropped });
    await page.getByText('Drop the file to attach it').waitFor();
    expect(await page.locator('.drop-overlay').textContent()).toContain('other files up to 100 MB');
    await page.dispatchEvent('.messages', 'drop', { dataTransfer: dropped });
    await page.getByRole('group', { name: 'File to send' }).getByText('Meter reading.pdf').waitFor();
    await page.getByRole('textbox', { name: 'Caption' }).fill('Received, thank you');
    await page.getByRole('button', { name: 'Send file' }).click();
    const sent = page.locator('.bubble-row.out', { hasText: 'Received, thank you' });
    await sent.locator('.document-name', { hasText: 'Meter reading.pdf' }).waitFor();
    await sent.getByRole('img', { name: 'Read' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('.bubble-row', { hasText: 'Received, thank you' }).count()).toBe(1); // never shown twice

    // The client file: the photo in the timeline as in the thread, and who sent each file.
    await page.getByRole('link', { name: 'Client file' }).click();
    await page
      .getByRole('list', { name: 'Timeline' })
      .locator('.timeline-item', { hasText: caption })
      .getByRole('img', { name: 'Photo from the conversation' })
      .waitFor();
    const documents = page.getByRole('region', { name: 'Documents' });
    await documents.getByRole('row', { name: /Meter reading\.pdf.*Sent by firm/ }).waitFor();
    await documents
      .getByRole('row', { name: /Photo.*From client/ })
      .first()
      .waitFor();
    await saveScreenshot(page, 'client-timeline-files');
    await context.close();
  });

  it('a file over its limit is refused in the composer with the limit, before anything is uploaded', async () => {
    const { page, context } = await openAmelia(390);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-big-'));
    const big = path.join(dir, 'scan.jpg');
    await writeFile(big, Buffer.alloc(5 * 1024 * 1024 + 10, 0xff));
    const before = live.sim.requests.length;
    await page.locator('input[type="file"]').setInputFiles(big);
    await page.getByRole('alert').filter({ hasText: 'A photo (JPEG or PNG) can be at most 5.0 MB' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send file' }).isDisabled()).toBe(true);
    expect(live.sim.requests.length).toBe(before);
    await saveScreenshot(page, 'composer-too-large-390');
    await context.close();
  });
});
