import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { axeOn } from '../support/axe';

// Read receipts by the firm's policy, in Chromium against the built app and the provider simulator: a
// director chooses it in Settings › Read receipts (at 1280 and 390 px), and the client's blue ticks
// follow — the read marks counted through the simulator's control API (server/dev/provider-sim/README.md).

const AMELIA = '447700900123';

describe.runIf(hasChromium())('read receipts, set in Settings; the client’s ticks follow', () => {
  const live = useLiveBrowserSuite();

  /** The read marks the app sent the provider, as the simulator's control API lists them. */
  const readMarks = async (): Promise<string[]> => {
    const requests = (await (await fetch(`${live.sim.url}/__sim/requests`)).json()) as { path: string; body: unknown }[];
    return requests
      .filter((r) => r.path === '/messages' && (r.body as { status?: string } | null)?.status === 'read')
      .map((r) => (r.body as { message_id: string }).message_id);
  };

  async function choose(page: Page, label: RegExp, width: number): Promise<void> {
    await page.goto(`${live.app.url}/settings`);
    const panel = page.getByRole('region', { name: 'Read receipts' });
    await panel.getByRole('radio', { name: label }).check();
    const { violations } = await axeOn(page, '.read-receipts');
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await saveScreenshot(panel, `settings-read-receipts-${width}`);
    await panel.getByRole('button', { name: 'Save read receipts' }).click();
    await page.getByRole('status').filter({ hasText: 'Read receipts saved.' }).waitFor();
  }

  /** Opens Amelia's conversation and waits for the app's answer to marking it read (the provider has been told by then, or not at all). */
  async function openAmelia(page: Page): Promise<void> {
    await page.goto(`${live.app.url}/`);
    const marked = page.waitForResponse((res) => res.url().includes('inbox.markRead') && res.ok());
    await page
      .locator('[data-thread]', { hasText: /Amelia Hart/ })
      .first()
      .click();
    await marked;
  }

  it('“anyone”: a director opening the conversation shows the client blue ticks; “off” (chosen on a phone): nobody’s opening does', async () => {
    const director = await signInDemo(live.browser, live.app.url, 'Director', { width: 1280, height: 860, bypassCSP: true });
    await choose(director.page, /When anyone opens it/, 1280);
    const first = await live.sim.sendInbound(AMELIA, 'Did my documents arrive?', 'Amelia Hart');
    await openAmelia(director.page);
    await expect.poll(readMarks).toEqual([first.id]);
    const delivered = (await (await fetch(`${live.sim.url}/__sim/messages`)).json()) as { id: string; readAt: string | null }[];
    expect(delivered.find((m) => m.id === first.id)?.readAt).toEqual(expect.any(String));

    const phone = await signInDemo(live.browser, live.app.url, 'Director', { width: 390, height: 844, bypassCSP: true });
    await choose(phone.page, /^Off/, 390);
    const second = await live.sim.sendInbound(AMELIA, 'And the signed lease?', 'Amelia Hart');
    await openAmelia(phone.page);
    expect(await readMarks()).toEqual([first.id]);
    expect(second.id).not.toBe(first.id);
    await director.context.close();
    await phone.context.close();
  });
});
