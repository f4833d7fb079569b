import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// A number typed by a person is never filed under the firm's country code when it cannot be a
// number of that country: "(415) 555-0199" on a UK firm's client page is refused with the sentence
// that asks for its country code, and is not offered anywhere; typed with +1 it is added.

describe.runIf(hasChromium())('numbers typed by people, in Chromium', () => {
  const live = useLiveBrowserSuite();

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    it(`a US number typed without its code is refused, with its code it is added (${viewport.width} px)`, async () => {
      const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff', viewport);
      await page.goto(`${live.app.url}/clients`);
      await page.getByRole('link', { name: /Chloe Martin/ }).click();
      const form = page.getByRole('form', { name: 'Add a number' });
      const phone = form.getByRole('textbox', { name: 'Add a number' });
      const numbers = page.getByRole('region', { name: 'Chat numbers' });

      await phone.fill('(415) 555-0199');
      await form.getByRole('button', { name: 'Add number' }).click();
      await expect
        .poll(() => phone.evaluate((input) => document.getElementById(input.getAttribute('aria-describedby') ?? '')?.textContent ?? ''))
        .toBe('That is not a valid number in the United Kingdom. Enter it with its country code, such as +1 415 555 0199.');
      expect(await page.getByText('4155550199').count()).toBe(0);
      expect(await page.getByText('+44 4155').count()).toBe(0);
      await saveScreenshot(page, `typed-number-refused-${viewport.width}`);

      await phone.fill('+1 415 555 0199');
      await form.getByRole('button', { name: 'Add number' }).click();
      await numbers.getByText('+1 415 555 0199').first().waitFor();
      expect(await page.getByText('+44 4155').count()).toBe(0);
      await context.close();
    });
  }
});
