import { buildSpa, spaIsStale } from '../../server/scripts/spa-build';

// The e2e project's global setup: the SPA built once, before any worker runs `npm start`, so two
// workers' apps never both decide it is stale and build into dist/client at the same time. The rule
// is `npm start`'s own; the build is React's development one (StrictMode's second mount is what
// tests/e2e/live-updates.test.ts "a page keeps the one stream it opened" needs to fail without its fix).
// So after an e2e run `npm start` serves that build until a source changes (`npm run build` replaces it).
export default async function setup(): Promise<void> {
  if (spaIsStale()) await buildSpa('development');
}
