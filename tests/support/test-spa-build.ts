import { buildSpa, spaIsStale } from '../../server/scripts/spa-build';
import { TEST_SPA_DIR } from './test-spa-dir';

// A global setup of the integration and e2e projects: the SPA built once into the tests' own
// directory before any worker starts an app (`npm start` builds when it finds the SPA stale: two
// workers' apps would both build into one directory at once). The build is React's development one:
// StrictMode's second mount is what tests/e2e/live-updates.test.ts "a page keeps the one stream it
// opened" needs to fail without its fix.
export default async function setup(): Promise<void> {
  if (spaIsStale(TEST_SPA_DIR)) await buildSpa('development', TEST_SPA_DIR);
}
