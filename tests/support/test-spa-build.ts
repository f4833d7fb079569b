import { buildSpa, spaIsStale } from '../../server/scripts/spa-build';
import { TEST_DEV_SPA_DIR, TEST_SPA_DIR } from './test-spa-dir';

// A global setup of the integration and e2e projects: the SPA built once into the tests' own
// directory before any worker starts an app (`npm start` builds when it finds the SPA stale: two
// workers' apps would both build into one directory at once). React's production build, as people get.
export default async function setup(): Promise<void> {
  if (spaIsStale(TEST_SPA_DIR)) await buildSpa('production', TEST_SPA_DIR);
}

/** React's development build, for the file whose test needs StrictMode's second mount (one file: no race). */
export async function buildDevelopmentSpa(): Promise<string> {
  if (spaIsStale(TEST_DEV_SPA_DIR)) await buildSpa('development', TEST_DEV_SPA_DIR);
  return TEST_DEV_SPA_DIR;
}
