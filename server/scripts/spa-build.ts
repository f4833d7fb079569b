import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CLIENT_DIST_DIR } from '../http/spa-route';

// The SPA's build for `npm start` and the e2e suite: built when a source is newer than the last build.
const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['client', 'shared', 'vite.config.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(target).reduce((max, name) => Math.max(max, newestMtime(path.join(target, name))), stat.mtimeMs);
}

/** Whether a source is newer than the SPA built in `outDir`. */
export function spaIsStale(outDir = CLIENT_DIST_DIR): boolean {
  const builtIndex = path.join(outDir, 'index.html');
  const builtAt = existsSync(builtIndex) ? statSync(builtIndex).mtimeMs : 0;
  return SOURCES.some((source) => newestMtime(source) > builtAt);
}

/**
 * The SPA built for `mode`, whatever NODE_ENV the caller runs under (Vite lets the shell's NODE_ENV
 * decide React's build): `npm start` serves production; the e2e suite drives a development build,
 * whose StrictMode mounts each component twice and so finds effects that do not clean up.
 */
export async function buildSpa(mode: 'production' | 'development' = 'production', outDir = CLIENT_DIST_DIR): Promise<void> {
  const { build } = await import('vite');
  const callerEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = mode;
  try {
    await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir, emptyOutDir: true } });
  } finally {
    if (callerEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = callerEnv;
  }
}
