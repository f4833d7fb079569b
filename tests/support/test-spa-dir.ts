import path from 'node:path';

/**
 * Where the apps the integration and e2e tests start serve the SPA from (their SPA_DIR, set for both
 * projects in vite.config.ts): a build of the tests' own, never dist/client, which `npm start` and the
 * benchmark's apps build for production whenever they find it stale, and may be doing meanwhile.
 */
export const TEST_SPA_DIR = path.resolve(import.meta.dirname, '../../dist/test-client');
