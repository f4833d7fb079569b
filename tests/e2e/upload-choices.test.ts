import { createHash } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useLiveBrowserSuite } from '../support/live-app';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';

// A 2×2 PNG.
const PHOTO = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

describe.runIf(hasChromium())('choices about a file before it is sent, in Chromium, live mode against the provider simulator', () => {
  const live = useLiveBrowserSuite({ receiptDelaysMs: [200, 400, 600], outOfOrderRate: 0 });

  async function openAmelia(): Promise<{ context: BrowserContext; page: Page; uploads: string[] }> {
    const { context, page } = await signInDemo(live.browser, live.app.url, 'Staff', { width: 1280, height: 900 });
    const uploads: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/uploads')) uploads.push(request.method());
    });
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Amelia Hart/ }).click();
    await page.getByRole('link', { name: 'Message' }).click();
    await page.getByRole('list', { name: 'Messages' }).waitFor();
    return { context, page, uploads };
  }

  async function localFile(name: string, bytes: Buffer): Promise<string> {
    const file = path.join(await mkdtemp(path.join(os.tmpdir(), 'firm-chat-choice-')), name);
    await writeFile(file, bytes);
    return file;
  }

  it('a program is sent only after the person has read the warning and chosen "Send anyway", by resumable upload', async () => {
    const { page, context, uploads } = await openAmelia();
    await page.locator('input[type="file"]').setInputFiles(await localFile('setup.exe', Buffer.from('MZ not really a program')));
    const warning = page
      .getByRole('alert')
      .filter({ hasText: "setup.exe is a program: the client's phone may warn them or refuse it. Send anyway?" });
    await warning.waitFor();
    expect(await page.getByRole('button', { name: 'Send file' }).isDisabled()).toBe(true);
    await saveScreenshot(page, 'composer-program-warning');
    await warning.getByRole('button', { name: 'Send anyway' }).click();
    await warning.waitFor({ state: 'detached' });
    await page.getByRole('textbox', { name: 'Caption' }).fill('The installer you asked for');
    await page.getByRole('button', { name: 'Send file' }).click();

    const bubble = page.locator('.bubble-row.out', { hasText: 'The installer you asked for' });
    await bubble.getByText('setup.exe').waitFor({ timeout: 15_000 });
    await bubble.getByRole('img', { name: 'Read' }).waitFor({ timeout: 15_000 });
    expect(uploads).toEqual(expect.arrayContaining(['POST', 'PATCH', 'GET']));
    expect(live.sim.requests.find((r) => r.path === '/media' && (r.body as { fileName?: string }).fileName === 'setup.exe')).toBeTruthy();
    await context.close();
  });

  it('a photo within its limit goes as a photo, by resumable upload, with the bytes picked', async () => {
    const { page, context, uploads } = await openAmelia();
    await page.locator('input[type="file"]').setInputFiles(await localFile('meter.png', PHOTO));
    await page.getByRole('group', { name: 'File to send' }).getByText('sent as a photo, up to 5.0 MB').waitFor();
    await page.getByRole('textbox', { name: 'Caption' }).fill('The meter this morning');
    await page.getByRole('button', { name: 'Send file' }).click();
    const bubble = page.locator('.bubble-row.out', { hasText: 'The meter this morning' });
    await bubble.getByRole('img', { name: 'Read' }).waitFor({ timeout: 15_000 });
    expect(uploads).toEqual(expect.arrayContaining(['POST', 'PATCH']));
    const media = live.sim.requests.find((r) => r.path === '/media' && (r.body as { fileName?: string }).fileName === 'meter.png');
    expect(media?.body).toMatchObject({ sha256: createHash('sha256').update(PHOTO).digest('hex') });
    const sent = live.sim.requests.find(
      (r) => r.path === '/messages' && (r.body as { type?: string; image?: unknown }).image !== undefined,
    );
    expect(sent?.body).toMatchObject({ type: 'image' });
    await context.close();
  });

  it('a photo over 5 MB is offered as a document, and goes as one', async () => {
    const { page, context } = await openAmelia();
    await page.locator('input[type="file"]').setInputFiles(await localFile('big scan.jpg', Buffer.alloc(6 * 1024 * 1024, 0xff)));
    const refusal = page.getByRole('alert').filter({ hasText: 'A photo (JPEG or PNG) can be at most 5.0 MB' });
    await refusal.waitFor();
    expect(await page.getByRole('button', { name: 'Send file' }).isDisabled()).toBe(true);
    await refusal.getByRole('button', { name: 'Send as a document instead' }).click();
    await page.getByRole('group', { name: 'File to send' }).getByText('sent as a document, up to 100 MB').waitFor();
    await saveScreenshot(page, 'composer-photo-as-document');
    await page.getByRole('textbox', { name: 'Caption' }).fill('The full-size scan');
    await page.getByRole('button', { name: 'Send file' }).click();

    const bubble = page.locator('.bubble-row.out', { hasText: 'The full-size scan' });
    await bubble.locator('.document-name', { hasText: 'big scan.jpg' }).waitFor({ timeout: 30_000 });
    await bubble.getByRole('img', { name: 'Read' }).waitFor({ timeout: 15_000 });
    const sent = live.sim.requests.find(
      (r) => r.path === '/messages' && (r.body as { document?: { filename?: string } }).document?.filename === 'big scan.jpg',
    );
    expect(sent?.body).toMatchObject({ type: 'document' });
    await context.close();
  });
});
