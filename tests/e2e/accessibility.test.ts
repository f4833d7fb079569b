import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, saveScreenshot, signInDemo } from '../support/browser';
import { useLiveBrowserSuite } from '../support/live-app';
import { axeOn, type TAxeResults } from '../support/axe';

// Every screen meets WCAG 2.1 AA as axe-core measures it, on a desk and on a phone.
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

type TRole = 'Director' | 'Staff';
type TScreen = { name: string; as: TRole | null; open: (page: Page, url: string) => Promise<void> };

async function openAmelia(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/clients`);
  await page.getByRole('link', { name: /Amelia Hart/ }).click();
  await page.getByRole('list', { name: 'Timeline' }).waitFor();
}

const SCREENS: TScreen[] = [
  {
    name: 'sign-in',
    as: null,
    open: async (page, url) => {
      // The suite's server is live; the demo accounts panel is what most people first see, so it is measured too.
      await page.route('**/api/health', (route) => route.fulfill({ json: { ok: true, mode: 'demo', db: 'up' } }));
      await page.goto(url);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await page.getByRole('region', { name: 'Demo accounts' }).waitFor();
    },
  },
  {
    name: 'inbox',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/inbox`);
      await page.locator('[data-thread]').first().waitFor();
    },
  },
  {
    name: 'inbox-conversation',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/inbox`);
      await page
        .getByRole('link', { name: /Amelia Hart/ })
        .first()
        .click();
      await page.getByRole('list', { name: 'Messages' }).waitFor();
      await page.locator('.bubble-row', { hasText: 'Invoice INV-2041' }).waitFor();
    },
  },
  {
    name: 'inbox-search',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/inbox`);
      await page.getByRole('searchbox', { name: 'Search messages' }).fill('invoice');
      await page.getByRole('list', { name: 'Search results' }).locator('mark').first().waitFor();
    },
  },
  {
    name: 'inbox-filter',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/inbox`);
      await page.locator('[data-thread]').first().waitFor();
      await page.getByRole('radio', { name: 'Unlinked' }).click();
      await page.getByRole('radio', { name: 'Unlinked', checked: true }).waitFor();
      await page.locator('[data-thread^="phone-"]').first().waitFor();
    },
  },
  {
    name: 'clients',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/clients`);
      await page.getByRole('link', { name: /Amelia Hart/ }).waitFor();
    },
  },
  { name: 'client', as: 'Staff', open: openAmelia },
  {
    name: 'case',
    as: 'Staff',
    open: async (page, url) => {
      await openAmelia(page, url);
      await page.getByRole('link', { name: /HART-2026-001/ }).click();
      await page.getByRole('heading', { name: 'Case timeline' }).waitFor();
      await page.getByRole('list', { name: 'Timeline' }).waitFor();
    },
  },
  {
    name: 'settings-director',
    as: 'Director',
    open: async (page, url) => {
      await page.goto(`${url}/settings`);
      await page.getByRole('heading', { name: 'Send a test message' }).waitFor();
    },
  },
  {
    name: 'settings-staff',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/settings`);
      await page.getByRole('heading', { name: 'Send a test message' }).waitFor();
    },
  },
  {
    name: 'audit',
    as: 'Director',
    open: async (page, url) => {
      await page.goto(`${url}/audit`);
      // A table on a desk, one card per event on a phone.
      await page.locator('[data-action="auth.sign_in"]').first().waitFor();
    },
  },
  {
    name: 'records',
    as: 'Director',
    open: async (page, url) => {
      await page.goto(`${url}/records`);
      await page.getByRole('heading', { name: 'Erasure requests' }).waitFor();
      // Measured with a preview's answer on screen (nothing is due in the demo data) and the switch on.
      await page.getByRole('button', { name: 'Preview what is due' }).click();
      await page.getByText('Nothing is due for destruction.').waitFor();
      await page.getByRole('switch', { name: 'Show released' }).click();
      await page.getByRole('switch', { name: 'Show released', checked: true }).waitFor();
    },
  },
  {
    name: 'not-found',
    as: 'Staff',
    open: async (page, url) => {
      await page.goto(`${url}/no-such-page`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    },
  },
];

/** One line per violation, with where it is and what to do, so a failure says what to fix. */
function describeViolations(violations: TAxeResults['violations']): string[] {
  return violations.map((v) => {
    const targets = v.nodes.map((n) => n.target.join(' ')).slice(0, 8);
    const more = v.nodes.length > targets.length ? ` (+${v.nodes.length - targets.length} more)` : '';
    return `${v.id} [${v.impact}] ${v.help} (${v.helpUrl}) at ${targets.join(' | ')}${more}`;
  });
}

/**
 * WCAG 1.4.10 (reflow), which axe does not measure: nothing sticks out past the right edge, so the
 * screen never scrolls sideways. Names the outermost elements that do.
 */
async function findOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const edge = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= edge) return [];
    const clipped = (el: Element) => {
      for (let p = el.parentElement; p; p = p.parentElement) if (getComputedStyle(p).overflowX !== 'visible') return true;
      return false;
    };
    const sticksOut = (el: Element) => el.getBoundingClientRect().right > edge + 1 && !clipped(el);
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${[...el.classList].map((c) => `.${c}`).join('')}`;
    const outermost = [...document.body.querySelectorAll('*')].filter(
      (el) => sticksOut(el) && !(el.parentElement && el.parentElement !== document.body && sticksOut(el.parentElement)),
    );
    const widest = outermost.map((el) => `${name(el)} reaches ${Math.round(el.getBoundingClientRect().right)} px`).slice(0, 6);
    return [`the page is ${document.documentElement.scrollWidth} px wide in a ${edge} px window`, ...widest];
  });
}

/** Nothing still loading: axe measures the screen a person reads, not its placeholder. */
async function waitForSettled(page: Page): Promise<void> {
  await expect.poll(() => page.getByText(/^(Loading|Searching)\b/).count(), { timeout: 10_000 }).toBe(0);
  await page.evaluate(() => document.fonts.ready);
}

describe.runIf(hasChromium())('every screen meets WCAG 2.1 AA (axe-core: no serious or critical violations)', () => {
  const live = useLiveBrowserSuite();

  describe.each(SIZES)('at $width×$height', ({ width, height }) => {
    const contexts = new Map<TRole | null, BrowserContext>();

    beforeAll(async () => {
      for (const role of ['Director', 'Staff'] as const)
        contexts.set(role, (await signInDemo(live.browser, live.app.url, role, { width, height, bypassCSP: true })).context);
      contexts.set(null, await live.browser.newContext({ viewport: { width, height }, bypassCSP: true }));
    });
    afterAll(async () => {
      for (const context of contexts.values()) await context.close();
    });

    it.each(SCREENS)('the $name screen has no serious or critical violations and does not scroll sideways', async (screen) => {
      const page = await contexts.get(screen.as)!.newPage();
      try {
        await screen.open(page, live.app.url);
        await waitForSettled(page);
        await saveScreenshot(page, `screen-${screen.name}-${width}`);
        const { violations } = await axeOn(page);
        const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
        expect.soft(describeViolations(serious), `axe on the ${screen.name} screen at ${width} px`).toEqual([]);
        expect.soft(await findOverflow(page), `the ${screen.name} screen scrolls sideways at ${width} px`).toEqual([]);
      } finally {
        await page.close();
      }
    });
  });
});
