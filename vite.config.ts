/// <reference types="vitest/config" />
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// FIRM_CHAT_CANARY=1 swaps each project's tests for its one deliberately failing canary
// (tests/canary/): .ci/run proves with them that a failing test fails the run.
const canary = process.env.FIRM_CHAT_CANARY === '1';
const testFiles = (project: string, pattern: string) => [canary ? `tests/canary/${project}.canary.test.ts` : pattern];

// One file for the SPA build (root: client/) and the three test projects.
export default defineConfig({
  root: 'client',
  plugins: [react()],
  build: {
    outDir: '../dist/client',
    emptyOutDir: true,
    reportCompressedSize: true,
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
        test: { name: 'unit', root: '.', include: testFiles('unit', 'tests/unit/**/*.test.{ts,tsx}'), environment: 'node' },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          root: '.',
          include: testFiles('integration', 'tests/integration/**/*.test.ts'),
          globalSetup: ['tests/support/global-postgres.ts'],
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
          testTimeout: 90_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
