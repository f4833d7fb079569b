import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/** The rules every screen is held to: WCAG 2.1 A and AA. */
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export type TAxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

/**
 * axe-core's WCAG 2.1 AA rules on `page`, or on what `include` selects, as one `axe.run` in the page
 * (legacy mode). The default runs axe in each frame and finishes in a new blank page, evaluating its
 * 550 KB three times: measured, the accessibility file's 26 runs took 79 CPU-s of axe that way, 35
 * this way (tests/README.md "End to end"). All it skips is cross-origin frames, which the app has none of.
 */
export function axeOn(page: Page, include?: string): Promise<TAxeResults> {
  const builder = new AxeBuilder({ page }).withTags(WCAG_21_AA).setLegacyMode();
  return (include === undefined ? builder : builder.include(include)).analyze();
}
