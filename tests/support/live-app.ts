import type { Browser } from 'playwright-core';
import type { ProviderSimulator, TSimulatorOptions } from '../../server/dev/provider-sim/provider-simulator';
import type { TAppProcess } from './app-process';
import { e2eTest } from './e2e-world';

export { E2E_KEY, E2E_SECRET } from './e2e-world';

export type TLiveBrowserSuite = {
  sim: ProviderSimulator;
  app: TAppProcess;
  browser: Browser;
  /** The app database's superuser URL, to load or back-date rows no request could. */
  ownerUrl: string;
};

/**
 * One e2e suite's parts: the worker's app in live mode (`npm start`, demo data seeded afresh for
 * this file), a provider simulator with `simOptions` that posts to it, and Chromium
 * (tests/support/e2e-world.ts). Read its fields inside tests and hooks.
 */
export function useLiveBrowserSuite(simOptions: Partial<TSimulatorOptions> = {}): TLiveBrowserSuite {
  const suite = {} as TLiveBrowserSuite;
  e2eTest.beforeAll(async ({ world }) => {
    const sim = await world.beginFile(simOptions);
    Object.assign(suite, { sim, app: world.app, browser: world.browser, ownerUrl: world.ownerUrl });
  });
  e2eTest.afterAll(({ world }) => world.endFile());
  return suite;
}
