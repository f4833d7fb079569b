import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findFreePort, startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { startProviderSimulator, type ProviderSimulator, type TSimulatorOptions } from '../../server/dev/provider-sim/provider-simulator';
import { startAppProcess, type TAppProcess } from './app-process';
import { launchChromium } from './browser';
import { silentLogger } from './own-cluster';

export const E2E_SECRET = 'e2e-webhook-secret';
export const E2E_KEY = 'e2e-provider-key';

/** `npm start` in live mode (demo data seeded on purpose) against a provider simulator that posts to it. */
export async function startLiveApp(
  simOptions: Partial<TSimulatorOptions> = {},
  env: Record<string, string> = {},
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
      ...env,
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
 * `startLiveApp` on a PostgreSQL of the test's own (one URL: the app migrates and runs on it), which
 * the test reaches as its owner at `ownerUrl` to load or back-date rows no request could.
 */
export async function startLiveAppOnOwnDatabase(
  prefix: string,
): Promise<{ sim: ProviderSimulator; app: TAppProcess; ownerUrl: string; stop: () => Promise<void> }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `firm-chat-${prefix}-`));
  await chmod(dataDir, 0o755); // the unprivileged postgres user runs the cluster under root
  const pg = await startEmbeddedPostgres(dataDir, silentLogger);
  const dropCluster = async () => {
    await pg.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const live = await startLiveApp({}, { DATABASE_URL: pg.url() }).catch(async (error: unknown) => {
    await dropCluster();
    throw error;
  });
  return {
    ...live,
    ownerUrl: pg.url(),
    stop: async () => {
      await live.stop();
      await dropCluster();
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
