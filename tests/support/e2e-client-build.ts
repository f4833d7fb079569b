import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';

// The e2e project's global setup: the SPA built once, before any worker runs `npm start`, so two
// workers' apps never both decide it is stale and build into dist/client at the same time. The rule
// is `npm start`'s own (server/scripts/start.ts): a source newer than the last build.
const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCES = ['client', 'shared', 'vite.config.ts', 'package-lock.json'].map((p) => path.join(ROOT, p));
const BUILT_INDEX = path.join(ROOT, 'dist/client/index.html');

function newestMtime(target: string): number {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(target).reduce((max, name) => Math.max(max, newestMtime(path.join(target, name))), stat.mtimeMs);
}

export default async function setup(): Promise<void> {
  const builtAt = existsSync(BUILT_INDEX) ? statSync(BUILT_INDEX).mtimeMs : 0;
  if (SOURCES.some((source) => newestMtime(source) > builtAt)) {
    await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn' });
  }
}
