import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { findFreePort } from '../../server/core/db/embedded-postgres';
import { startProviderSimulator, type ProviderSimulator, type TSimulatorOptions } from '../../server/dev/provider-sim/provider-simulator';
import { startAppProcess, type TAppProcess } from './app-process';
import { launchChromium } from './browser';

export const E2E_SECRET = 'e2e-webhook-secret';
export const E2E_KEY = 'e2e-provider-key';

/** `npm start` in live mode (demo data seeded on purpose) against a provider simulator that posts to it. */
export async function startLiveApp(
  simOptions: Partial<TSimulatorOptions> = {},
): Promise<{ sim: ProviderSimulator; app: TAppProcess; stop: () => Promise<void> }> {
  const port = await findFreePort();
  const sim = await startProviderSimulator({
    apiKey: E2E_KEY,
    webhookSecret: E2E_SECRET,
    webhookUrl: `http://127.0.0.1:${port}/api/webhooks/chat`,
    outOfOrderRate: 0,
    ...simOptions,
  });
  const app = await startAppProcess({
    port,
    seedDemo: true,
    env: {
      MESSAGING_API_KEY: E2E_KEY,
      MESSAGING_PROVIDER_URL: sim.url,
      MESSAGING_WEBHOOK_SECRET: E2E_SECRET,
      SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
    },
  }).catch(async (error: unknown) => {
    await sim.close();
    throw error;
  });
  return {
    sim,
    app,
    stop: async () => {
      await app.stop();
      await sim.close();
    },
  };
}

/**
 * One e2e suite's parts: the app in live mode against the simulator (`startLiveApp`) and Chromium,
 * started before the suite's tests and stopped after them. Read its fields inside tests and hooks.
 */
export function useLiveBrowserSuite(simOptions: Partial<TSimulatorOptions> = {}): {
  sim: ProviderSimulator;
  app: TAppProcess;
  browser: Browser;
} {
  const suite = {} as { sim: ProviderSimulator; app: TAppProcess; browser: Browser };
  beforeAll(async () => {
    const { sim, app } = await startLiveApp(simOptions);
    Object.assign(suite, { sim, app, browser: await launchChromium() });
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.app?.stop();
    await suite.sim?.close();
  });
  return suite;
}
