import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';

// A refused form shows every field's message beside its field at once, tied to
// the field for screen readers (aria-invalid, aria-describedby), and the server alone decides what
// is valid (the browser's own checks never stop a submit). One refusal per form: the rules
// themselves, field by field, are the server's and are held by tests/integration/form-errors.test.ts
// and tests/unit/phone-input.test.ts.

/** The message a field points to with aria-describedby while it is marked invalid ('' when it is not). */
function errorOf(field: Locator): Promise<string> {
  return field.evaluate((input) => {
    if (input.getAttribute('aria-invalid') !== 'true') return '';
    const id = input.getAttribute('aria-describedby');
    return (id && document.getElementById(id)?.textContent) || '';
  });
}

/** Waits for the field to be marked invalid with a message matching `expected` that it names in aria-describedby. */
async function expectFieldError(field: Locator, expected: string | RegExp): Promise<void> {
  const poll = expect.poll(() => errorOf(field));
  await (typeof expected === 'string' ? poll.toBe(expected) : poll.toMatch(expected));
}

const focusedLabel = (page: Page) =>
  page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.labels?.[0]?.textContent ?? null);

describe.runIf(hasChromium())('form errors in Chromium', () => {
  const live = useLiveBrowserSuite();

  it('a new client with nothing typed shows both messages beside their fields; corrected, adding opens the new client', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    const form = page.getByRole('form', { name: 'New client' });
    const name = form.getByRole('textbox', { name: 'Name', exact: true });
    const phone = form.getByRole('textbox', { name: 'Mobile number' });

    // Empty: the browser's own "required" bubble does not stop it; the server answers for both fields.
    await form.getByRole('button', { name: 'Add client' }).click();
    await expectFieldError(name, "Enter the client's name");
    await expectFieldError(phone, 'Enter a phone number');
    expect(await focusedLabel(page)).toBe('Name');
    // Each message beside its own field, and no summary repeating them.
    expect(await form.getByRole('alert').count()).toBe(0);
    await saveScreenshot(page, 'form-new-client-errors');

    await name.fill('Ines Ortega');
    await phone.fill('+44 7700 900650');
    await form.getByRole('button', { name: 'Add client' }).click();
    await page.waitForURL(/\/clients\/\d+$/);
    await page.getByRole('heading', { name: 'Ines Ortega', level: 1 }).waitFor();
    await context.close();
  });

  it('opening a case with no reference and a long title shows both messages beside their fields; corrected, the case is listed', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Clients' }).click();
    await page.getByRole('link', { name: /Benedict Okafor/ }).click();
    const form = page.getByRole('form', { name: 'Open a case' });
    const reference = form.getByRole('textbox', { name: 'Reference' });
    const title = form.getByRole('textbox', { name: 'Title' });

    await title.fill('T'.repeat(201));
    await form.getByRole('button', { name: 'Open case' }).click();
    await expectFieldError(reference, 'Enter a reference, such as ABC-2026-001');
    await expectFieldError(title, 'Title is too long — 200 characters at most');
    expect(await focusedLabel(page)).toBe('Reference');
    await saveScreenshot(page, 'form-open-case-errors');

    await reference.fill('OKAF-2026-002');
    await title.fill('Settlement agreement');
    await form.getByRole('button', { name: 'Open case' }).click();
    await page
      .getByRole('region', { name: 'Cases' })
      .getByRole('link', { name: /OKAF-2026-002/ })
      .waitFor();
    expect(await reference.inputValue()).toBe('');
    await context.close();
  });

  // A number typed by a person is never filed under the firm's country code when it cannot be a
  // number of that country: "(415) 555-0199" on a UK firm's client page is refused with the sentence
  // that asks for its country code, and is not offered anywhere; typed with +1 it is added.
  it('a US number typed without its code is refused beside the field at 390 px; with its code it is added', async () => {
    const { page, context } = await signInDemo(live.browser, live.app.url, 'Staff', { width: 390, height: 844 });
    await page.goto(`${live.app.url}/clients`);
    await page.getByRole('link', { name: /Chloe Martin/ }).click();
    const form = page.getByRole('form', { name: 'Add a number' });
    const phone = form.getByRole('textbox', { name: 'Add a number' });
    const numbers = page.getByRole('region', { name: 'Chat numbers' });

    await phone.fill('(415) 555-0199');
    await form.getByRole('button', { name: 'Add number' }).click();
    await expectFieldError(
      phone,
      'That is not a valid number in the United Kingdom. Enter it with its country code, such as +1 415 555 0199.',
    );
    expect(await page.getByText('4155550199').count()).toBe(0);
    expect(await page.getByText('+44 4155').count()).toBe(0);
    await saveScreenshot(page, 'form-add-number-error-390');

    await phone.fill('+1 415 555 0199');
    await form.getByRole('button', { name: 'Add number' }).click();
    await numbers.getByText('+1 415 555 0199').first().waitFor();
    expect(await page.getByText('+44 4155').count()).toBe(0);
    await context.close();
  });

  it('signing in: empty, both fields ask for themselves; a wrong password is said once, for the form', async () => {
    const context = await live.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(live.app.url);
    const email = page.getByRole('textbox', { name: 'Email' });
    const password = page.getByRole('textbox', { name: 'Password' });
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectFieldError(email, 'Enter your email');
    await expectFieldError(password, 'Enter your password');

    await email.fill('staff@demo.firm');
    await password.fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    const summary = page.getByRole('alert').filter({ hasText: 'Email or password is incorrect.' });
    await summary.waitFor();
    // No field is in error: focus goes to the summary (the Sign in button was disabled while it ran).
    await expect.poll(() => summary.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await email.getAttribute('aria-invalid')).toBeNull();
    expect(await password.getAttribute('aria-invalid')).toBeNull();
    await saveScreenshot(page, 'form-sign-in-wrong-password');
    await context.close();
  });
});
