/// <reference types="vitest/config" />
import { availableParallelism } from 'node:os';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { TEST_SPA_DIR } from './tests/support/test-spa-dir';

// FIRM_CHAT_CANARY=1 swaps each project's tests for its one deliberately failing canary
// (tests/canary/): .ci/run proves with them that a failing test fails the run.
const canary = process.env.FIRM_CHAT_CANARY === '1';
const testFiles = (project: string, pattern: string) => [canary ? `tests/canary/${project}.canary.test.ts` : pattern];
// Unit and integration files at least two at a time (vitest's default leaves one core free: on two
// cores, one file at a time, while a file mostly waits on PostgreSQL, a child process or a timer).
const WORKERS = Math.max(2, availableParallelism() - 1);
// A worker's files share its modules (each file still starts its own server and database): importing
// the server afresh for every file was a third of the suite's CPU. A file leaves no state behind that
// another reads: what a file changes in a module (a hash cost, a clock) it puts back in its afterAll.
const SHARED_MODULES = { isolate: false };
// e2e workers: each runs its own app, database and Chromium. A browser test mostly waits (for a page,
// a poll, the provider's answer): one more worker than cores (two per core made each file twice as slow).
const E2E_WORKERS = Math.max(2, availableParallelism() + 1);

// Every app a test starts (`npm start` in a child) serves the tests' own SPA build
// (tests/support/test-spa-build.ts), whatever dist/client holds meanwhile.
const TEST_APPS_ENV = { SPA_DIR: TEST_SPA_DIR };

// One file for the SPA build (root: client/) and the three test projects.
export default defineConfig({
  root: 'client',
  plugins: [react()],
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    reportCompressedSize: true,
    // The SPA's modules are imported for what they export, never for what importing them does
    // (styles.css aside): a feature's index.ts then brings along only what its importer uses.
    rolldownOptions: { treeshake: { moduleSideEffects: [{ test: /\/client\/src\/.+\.tsx?$/, sideEffects: false }] } },
  },
  server: {
    port: 5173,
    proxy: { '/trpc': 'http://localhost:3000', '/api': 'http://localhost:3000' },
  },
  test: {
    root: '.',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          root: '.',
          include: testFiles('unit', 'tests/unit/**/*.test.{ts,tsx}'),
          environment: 'node',
          ...SHARED_MODULES,
          maxWorkers: WORKERS,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          root: '.',
          include: testFiles('integration', 'tests/integration/**/*.test.ts'),
          globalSetup: [
            'tests/support/global-postgres.ts',
            ...(canary ? [] : ['tests/support/test-spa-build.ts', 'tests/support/test-server-build.ts']),
          ],
          env: TEST_APPS_ENV,
          setupFiles: ['tests/support/integration-setup.ts'],
          ...SHARED_MODULES,
          maxWorkers: WORKERS,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          root: '.',
          include: testFiles('e2e', 'tests/e2e/**/*.test.ts'),
          // The SPA built once before the workers start their apps (tests/support/test-spa-build.ts).
          globalSetup: canary ? [] : ['tests/support/test-spa-build.ts', 'tests/support/test-server-build.ts'],
          env: TEST_APPS_ENV,
          // One app, database and Chromium per worker, shared by its files one after another, each
          // file starting from a reset database (tests/support/e2e-world.ts): files share a worker's modules.
          isolate: false,
          maxWorkers: E2E_WORKERS,
          // Its own group (after unit and integration) when one `vitest run` runs every project.
          sequence: { groupOrder: 1 },
          testTimeout: 90_000,
          hookTimeout: 180_000,
          // A page answers later while another worker's app and browser share the cores: polls wait
          // up to 5 s (not 1 s) for what they expect, and return as soon as it is there.
          expect: { poll: { timeout: 5_000 } },
        },
      },
    ],
  },
});
