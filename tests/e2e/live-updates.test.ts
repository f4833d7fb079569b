import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { startAppProcess, type TAppProcess } from '../support/app-process';
import { hasChromium, launchChromium, liveStreamOpen, signInDemo } from '../support/browser';
import { buildDevelopmentSpa } from '../support/test-spa-build';
import { cloudPayload, postWebhook, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// Live updates over a restart: the server ends its streams without tRPC's `return`, the
// browser reconnects by itself with the last event id it saw, and the new stream starts with a
// resync — so a page left open through a deploy catches up without a reload. This file's app serves
// React's development build: StrictMode mounts the app twice, which is what the first test needs to
// fail without its fix (an unmount that ends a stream must not schedule a restart).
describe.runIf(hasChromium())('live updates in Chromium across a server restart', () => {
  let app: TAppProcess;
  let browser: Browser;
  let dataDir: string;
  let port: number;
  const env: Record<string, string> = {
    MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SESSION_SECRET: 'e2e-live-session-secret-0123456789ab',
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-live-'));
    await chmod(dataDir, 0o755);
    port = await findFreePort();
    env.SPA_DIR = await buildDevelopmentSpa();
    app = await startAppProcess({ port, dataDir, env });
    browser = await launchChromium();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await app?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a page keeps the one stream it opened: ending a stream itself never schedules another restart', async () => {
    const { page, context } = await signInDemo(browser, app.url, 'Staff');
    // The page's own time, run forward here: a restart loop (2, 4, 8, 16 s apart) shows in seconds. Not
    // past 45 s: a stream that hears no ping for that long is reconnected by tRPC's link, and the
    // server's pings come in real time (server/live/live-streams.ts).
    await page.clock.install();
    const streams: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/trpc/inbox.onChange') streams.push(request.url());
    });
    await page.reload();
    await liveStreamOpen(page);
    const opened = streams.length; // one, or two where React's development checks mount the app twice
    for (const seconds of [2, 4, 8, 16]) {
      await page.clock.runFor(seconds * 1_000 + 100);
      await liveStreamOpen(page);
    }
    expect(streams).toHaveLength(opened);
    await context.close();
  });

  it('an open inbox hears a message live, and after the server restarts hears the next one without a reload', async () => {
    const { page, context } = await signInDemo(browser, app.url, 'Staff');
    // The stream open before the provider posts: a message stored before it opened, after the inbox was
    // read, would be neither in the list nor heard (under load the page read its inbox first, then missed it).
    await liveStreamOpen(page);
    const stamp = Date.now();
    expect(
      (
        await postWebhook(
          app.url,
          cloudPayload({ messages: [textMessage(`wamid.live-before-${stamp}`, '447700900771', `Before the restart ${stamp}`)] }),
        )
      ).status,
    ).toBe(200);
    await page.getByText(`Before the restart ${stamp}`).first().waitFor();
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

    await app.stop();
    app = await startAppProcess({ port, dataDir, env });
    // Stored while the page may not have reconnected yet: it comes either live or by the resync.
    expect(
      (
        await postWebhook(
          app.url,
          cloudPayload({ messages: [textMessage(`wamid.live-after-${stamp}`, '447700900772', `After the restart ${stamp}`)] }),
        )
      ).status,
    ).toBe(200);
    await page.getByText(`After the restart ${stamp}`).first().waitFor({ timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    // Still signed in, still on the inbox.
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await context.close();
  }, 240_000);
});
