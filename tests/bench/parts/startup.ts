import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findFreePort } from '../../../server/core/db/embedded-postgres';
import { TSX } from '../app-under-test';
import { startProcess, type TBenchTools } from '../bench-support';

// Part 5, start-up: `npm start` until /api/health answers, on a fresh embedded data dir and again on
// the one it left.

export async function benchStartup(tools: TBenchTools) {
  console.log('\n== 5. Start-up with an existing embedded data dir (npm start → /api/health)');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-start-'));
  await chmod(dataDir, 0o755);
  const port = await findFreePort();
  const env = { DATA_DIR: dataDir, PORT: String(port), DATABASE_URL: '', LOG_LEVEL: 'warn', MESSAGING_API_KEY: '' };
  const first = await startProcess(TSX, ['server/scripts/start.ts'], env, `http://127.0.0.1:${port}/api/health`);
  await first.stop();
  const second = await startProcess(TSX, ['server/scripts/start.ts'], env, `http://127.0.0.1:${port}/api/health`);
  await second.stop();
  await rm(dataDir, { recursive: true, force: true });
  tools.report({ part: 'startup', name: 'first start (initdb, migrations, demo seed)', value: first.ms, unit: 'ms' });
  tools.report({ part: 'startup', name: 'start with an existing data dir', value: second.ms, unit: 'ms' });
}
