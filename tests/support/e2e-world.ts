import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { test } from 'vitest';
import { loadConfig } from '../../server/core/config';
import { findFreePort, startEmbeddedPostgres } from '../../server/core/db/embedded-postgres';
import { openDatabase } from '../../server/core/db/open-database';
import { startProviderSimulator, type ProviderSimulator, type TSimulatorOptions } from '../../server/dev/provider-sim/provider-simulator';
import { lastCheckpointFileOf } from '../../server/audit/last-checkpoint-file';
import { seedDemoData } from '../../server/seed/seed-demo';
import { loadSigningKey } from '../../server/signing';
import { setPasswordHashCost } from '../../server/auth/password';
import { startAppProcess, type TAppProcess } from './app-process';
import { launchChromium } from './browser';
import { resetDatabaseToBase, saveDatabaseBase } from './database-reset';
import { TEST_HASH_COST } from './hash-cost';
import { silentLogger } from './own-cluster';
import { sql } from './sql';

export const E2E_SECRET = 'e2e-webhook-secret';
export const E2E_KEY = 'e2e-provider-key';

/**
 * One e2e worker's parts, started once and shared by its files one after another (the e2e project
 * runs with `isolate: false`): `npm start` in live mode on a PostgreSQL of the worker's own, the
 * provider simulator on a fixed port, and Chromium. `beginFile` gives each file the state a fresh
 * start had: the database back to its base with the demo data seeded anew, a new simulator with
 * the file's options, no browser context left open.
 */
export type TE2eWorld = {
  app: TAppProcess;
  /** The database's superuser URL: rows no request could write, loaded or back-dated by a test. */
  ownerUrl: string;
  browser: Browser;
  beginFile: (simOptions?: Partial<TSimulatorOptions>) => Promise<ProviderSimulator>;
  endFile: () => Promise<void>;
};

async function startWorld(onCleanup: (fn: () => Promise<void>) => void): Promise<TE2eWorld> {
  // Each part is stopped, last started first, when the worker ends, or at once if a later part fails to start.
  const stops: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
  };
  onCleanup(stopAll);
  try {
    return await startParts(stops);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function startParts(stops: (() => Promise<unknown>)[]): Promise<TE2eWorld> {
  // The demo accounts each file seeds are hashed at the tests' cost: every sign-in checks a hash at the cost
  // written in it, so each of the suite's sign-ins costs the app a few ms instead of ~300 ms of CPU.
  setPasswordHashCost(TEST_HASH_COST);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-e2e-world-'));
  stops.push(() => rm(dataDir, { recursive: true, force: true }));
  await chmod(dataDir, 0o755); // the unprivileged postgres user runs the cluster under root
  const pg = await startEmbeddedPostgres(dataDir, silentLogger, { throwaway: true });
  stops.push(() => pg.stop());
  const ownerUrl = pg.url();
  // Migrated here, and this worker's db() bound to it: each file's demo data is seeded through it.
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: ownerUrl, PORT: '0' });
  const database = await openDatabase(config, silentLogger);
  stops.push(() => database.close());
  const appPort = await findFreePort();
  const simPort = await findFreePort([appPort]);
  const simDefaults: TSimulatorOptions = {
    apiKey: E2E_KEY,
    webhookSecret: E2E_SECRET,
    webhookUrl: `http://127.0.0.1:${appPort}/api/webhooks/chat`,
    outOfOrderRate: 0,
    port: simPort,
  };
  let sim: ProviderSimulator | undefined = await startProviderSimulator(simDefaults);
  stops.push(async () => sim?.close());
  // The app's key in the world's own directory: each file's reset forgets the checkpoint it kept beside it.
  const signingKeyFile = path.join(dataDir, 'signing-key.pem');
  loadSigningKey(signingKeyFile, { create: true });
  const app = await startAppProcess({
    port: appPort,
    env: {
      SIGNING_KEY_FILE: signingKeyFile,
      DATABASE_URL: ownerUrl,
      MESSAGING_API_KEY: E2E_KEY,
      MESSAGING_PROVIDER_URL: sim.url,
      MESSAGING_WEBHOOK_SECRET: E2E_SECRET,
      SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
      // A provider that never answers is given up after 5 s, not 10: a test of a lost answer waits less.
      MESSAGING_TIMEOUT_SECONDS: '5',
    },
  });
  stops.push(() => app.stop());
  const browser = await launchChromium();
  stops.push(() => browser.close());
  // The catalogue is read from the simulator in the background at start-up: the base holds it.
  const deadline = Date.now() + 30_000;
  while ((await sql(ownerUrl, 'SELECT 1 FROM provider_template_sync')).length === 0) {
    if (Date.now() > deadline) throw new Error(`the app did not sync its templates:\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await saveDatabaseBase(ownerUrl);

  const closeFileParts = async () => {
    await sim?.close();
    sim = undefined;
    await Promise.all(browser.contexts().map((context) => context.close().catch(() => undefined)));
  };
  return {
    app,
    ownerUrl,
    browser,
    beginFile: async (simOptions = {}) => {
      await closeFileParts();
      await resetDatabaseToBase(ownerUrl);
      // The trail goes back to the base, as a restore would take it: the newest checkpoint kept outside goes with it.
      rmSync(lastCheckpointFileOf(signingKeyFile), { force: true });
      await seedDemoData({ defaultCountry: config.defaultCountry });
      sim = await startProviderSimulator({ ...simDefaults, ...simOptions, port: simPort });
      return sim;
    },
    endFile: closeFileParts,
  };
}

/** The e2e test API with the worker's world: hooks and tests that name `world` get the one started for their worker. */
// eslint-disable-next-line no-empty-pattern -- vitest reads what a fixture needs from its first parameter's destructuring: nothing
export const e2eTest = test.extend('world', { scope: 'worker' }, ({}, { onCleanup }) => startWorld(onCleanup));
