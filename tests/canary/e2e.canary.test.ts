import { expect, it } from 'vitest';
import { launchChromium } from '../support/browser';

it('canary: this e2e test fails on purpose', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.setContent('<title>canary</title>');
    expect(await page.title(), 'deliberate canary failure').toBe('not the canary');
  } finally {
    await browser.close();
  }
});
