import path from 'node:path';

/**
 * Where the apps the integration and e2e tests start serve the SPA from (their SPA_DIR, set for both
 * projects in vite.config.ts): a build of the tests' own, never dist/client, which `npm start` and the
 * benchmark's apps build for production whenever they find it stale, and may be doing meanwhile.
 */
export const TEST_SPA_DIR = path.resolve(import.meta.dirname, '../../dist/test-client');

/**
 * React's development build, for the one file that needs StrictMode's second mount to catch an effect
 * that does not clean up (tests/e2e/live-updates.test.ts); every other app serves the production build,
 * which costs the browser about a third less CPU (tests/README.md "End to end").
 */
export const TEST_DEV_SPA_DIR = path.resolve(import.meta.dirname, '../../dist/test-client-dev');
