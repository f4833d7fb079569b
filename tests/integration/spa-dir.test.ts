import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startAppProcess, type TAppProcess } from '../support/app-process';

// `npm start` serves the SPA from SPA_DIR (the tests point every app they start at a build of their
// own, tests/support/test-spa-build.ts): a build found there, newer than every source, is served as
// it is, and nothing is built into dist/client instead.
let app: TAppProcess | undefined;
let spaDir: string | undefined;
afterAll(async () => {
  await app?.stop();
  if (spaDir) await rm(spaDir, { recursive: true, force: true });
});

it('serves the SPA found in SPA_DIR, on the root and on a screen of its own', async () => {
  spaDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-spa-dir-'));
  const marker = `spa-dir-${process.pid}-${Date.now()}`;
  await writeFile(path.join(spaDir, 'index.html'), `<!doctype html><title>${marker}</title>`);
  app = await startAppProcess({ env: { SPA_DIR: spaDir } });
  for (const page of ['/', '/inbox']) {
    const res = await fetch(`${app.url}${page}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(marker);
  }
  // A whole `npm start` (its own cluster initialised, migrated, seeded): as long as the other files that start one allow.
}, 120_000);
