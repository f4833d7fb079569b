import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The map in server/ARCHITECTURE.md is kept by dependency-cruiser (.dependency-cruiser.cjs, run by
// `npm run lint:deps`). These tests plant one violation of each rule in a throwaway tree and check
// the same configuration names it, so a rule that silently stopped matching would fail here.
const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const run = promisify(execFile);

type TViolation = { from: string; to: string; rule: { name: string } };

async function cruise(cwd: string, paths: string[]): Promise<TViolation[]> {
  // Exit code 1 just means "violations found"; the JSON is on stdout either way.
  const result = await run(process.execPath, [DEPCRUISE, ...paths, '--config', CONFIG, '--output-type', 'json'], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return (JSON.parse(result.stdout) as { summary: { violations: TViolation[] } }).summary.violations;
}

// A cruise of the whole repository takes a few seconds, more on a busy machine.
const CRUISE_TIMEOUT_MS = 60_000;

describe('the dependency rule', () => {
  let tree = '';
  const planted: Record<string, string> = {
    // The core reaching up into a feature.
    'server/core/config.ts': "import { sendChatMessage } from '../messaging/send-message';\nexport const config = sendChatMessage;\n",
    'server/messaging/send-message.ts': "import { a } from './cycle-a';\nexport const sendChatMessage = a;\n",
    // A cycle inside one feature.
    'server/messaging/cycle-a.ts': "import { b } from './cycle-b';\nexport const a = () => b;\n",
    'server/messaging/cycle-b.ts': "import { a } from './cycle-a';\nexport const b = () => a;\n",
    // A feature reaching past another's index.ts, and one going through it (allowed).
    'server/webhook/ingest.ts':
      "import { sendChatMessage } from '../messaging/send-message';\nimport { ok } from '../crm';\nexport const ingest = [sendChatMessage, ok];\n",
    'server/crm/index.ts': 'export const ok = 1;\n',
    // A router imported by something other than the app.
    'server/inbox/inbox-router.ts': 'export const inboxRouter = 1;\n',
    'server/inbox/threads.ts':
      "import { inboxRouter } from './inbox-router';\nexport const threads = inboxRouter;\nexport type TThreads = typeof threads;\n",
    // An applied migration calling live code.
    'server/core/db/migration-type.ts': 'export type TMigration = { name: string };\n',
    'server/core/db/migrations/0001-first.ts':
      "import { config } from '../../config';\nimport type { TMigration } from '../migration-type';\nexport const first: TMigration = { name: String(config) };\n",
    // The SPA bundling server code.
    'client/src/app.ts': "import { threads } from '../../server/inbox/threads';\nexport const app = threads;\n",
    // The SPA's lib/ reaching up into a feature.
    'client/src/features/inbox/inbox-page.tsx': 'export const page = 1;\n',
    'client/src/lib/format.ts': "import { page } from '../features/inbox/inbox-page';\nexport const format = page;\n",
    // A client feature, and the SPA's layout, past another feature's index.ts; one going through it (allowed).
    'client/src/features/composer/composer.tsx': 'export const composer = 1;\n',
    'client/src/features/composer/index.ts': "export { composer } from './composer';\n",
    'client/src/features/conversation/thread-view.tsx':
      "import { composer } from '../composer/composer';\nimport { composer as door } from '../composer';\nexport const view = [composer, door];\n",
    'client/src/layout.tsx': "import { composer } from './features/composer/composer';\nexport const layout = composer;\n",
    // Product code loading the simulator.
    // The simulator using a product feature.
    'server/dev/provider-sim/sim.ts': "import { ok } from '../../crm';\nexport const sim = ok;\n",
    // shared/ reaching into the server.
    'shared/phone.ts': "import { config } from '../server/core/config';\nexport const phone = config;\n",
    // Middleware using a feature, even through its index.
    'server/http/guard.ts': "import { ok } from '../crm';\nexport const guard = ok;\n",
    // What every router imports, importing a feature back: by value, and by type alone.
    'server/trpc/init.ts': "import { ok } from '../crm';\nexport const init = ok;\n",
    'server/trpc/context.ts': "import type { TThreads } from '../inbox/threads';\nexport type TContext = TThreads;\n",
    // Two folders leaning on each other, each through the other's index.ts and one by type only: no
    // module reaches itself (no-circular is silent), yet each folder needs the other.
    'server/conversations/index.ts': "export { ref, type TRef } from './ref';\n",
    'server/conversations/ref.ts': 'export type TRef = { clientId: number };\nexport const ref = 1;\n',
    'server/conversations/row.ts': "import { assign } from '../ownership';\nexport const row = assign;\n",
    'server/ownership/index.ts': "export { assign } from './assign';\n",
    'server/ownership/assign.ts': "import type { TRef } from '../conversations';\nexport const assign = (ref: TRef) => ref;\n",
    // The SPA importing the router as a value (it would bundle the server).
    'server/app/app-router.ts': 'export const appRouter = 1;\nexport type AppRouter = typeof appRouter;\n',
    'client/src/lib/trpc.ts': "import { appRouter } from '../../../server/app/app-router';\nexport const trpc = appRouter;\n",
    // An import of nothing.
    'server/core/logger.ts': "import { missing } from './missing';\nexport const logger = missing;\n",
    'server/media/store.ts': "import { sim } from '../dev/provider-sim/sim';\nexport const store = sim;\n",
  };

  beforeAll(async () => {
    tree = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-deps-'));
    await writeFile(path.join(tree, 'tsconfig.json'), '{ "compilerOptions": { "module": "ESNext", "moduleResolution": "bundler" } }\n');
    for (const [file, text] of Object.entries(planted)) {
      await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
      await writeFile(path.join(tree, file), text);
    }
  });
  afterAll(async () => {
    if (tree) await rm(tree, { recursive: true, force: true });
  });

  it(
    'names each planted violation by its rule, and nothing that is allowed',
    async () => {
      const found = (await cruise(tree, ['server', 'client', 'shared'])).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
      expect(found).toEqual(
        expect.arrayContaining([
          'core-imports-no-feature: server/core/config.ts → server/messaging/send-message.ts',
          expect.stringMatching(/^no-circular: server\/messaging\/cycle-[ab]\.ts → server\/messaging\/cycle-[ab]\.ts$/),
          'feature-through-its-index: server/webhook/ingest.ts → server/messaging/send-message.ts',
          'only-the-app-imports-routes: server/inbox/threads.ts → server/inbox/inbox-router.ts',
          'migrations-are-frozen: server/core/db/migrations/0001-first.ts → server/core/config.ts',
          'client-reads-only-router-types: client/src/app.ts → server/inbox/threads.ts',
          'product-imports-no-dev-tool: server/media/store.ts → server/dev/provider-sim/sim.ts',
          'client-ui-and-lib-import-no-feature: client/src/lib/format.ts → client/src/features/inbox/inbox-page.tsx',
          'client-feature-through-its-index: client/src/features/conversation/thread-view.tsx → client/src/features/composer/composer.tsx',
          'client-feature-through-its-index: client/src/layout.tsx → client/src/features/composer/composer.tsx',
          'dev-tool-stands-alone: server/dev/provider-sim/sim.ts → server/crm/index.ts',
          'shared-imports-only-shared: shared/phone.ts → server/core/config.ts',
          'http-is-middleware: server/http/guard.ts → server/crm/index.ts',
          'trpc-base-imports-only-core: server/trpc/init.ts → server/crm/index.ts',
          'trpc-base-imports-only-core: server/trpc/context.ts → server/inbox/threads.ts',
          'no-folder-cycle: server/conversations → server/ownership',
          'no-folder-cycle: server/ownership → server/conversations',
          'client-router-import-is-type-only: client/src/lib/trpc.ts → server/app/app-router.ts',
          'not-to-unresolvable: server/core/logger.ts → ./missing',
        ]),
      );
      // Through an index, and a migration's own type, are allowed (to the features that may).
      expect(found.filter((v) => v.startsWith('feature-through-its-index') && v.includes('→ server/crm/index.ts'))).toEqual([]);
      expect(found.filter((v) => v.includes('→ client/src/features/composer/index.ts'))).toEqual([]);
      expect(found.filter((v) => v.includes('→ server/core/db/migration-type.ts'))).toEqual([]);
      // The folders' cycle is the folder rule's alone; a folder using another one way (webhook → crm) is none.
      expect(found.filter((v) => v.startsWith('no-circular') && /server\/(conversations|ownership)\//.test(v))).toEqual([]);
      expect(found.filter((v) => v.startsWith('no-folder-cycle') && !/server\/(conversations|ownership)$/.test(v))).toEqual([]);
      // Every rule in the configuration has a planted violation here.
      const config = (await import(CONFIG)) as { default: { forbidden: { name: string }[] } };
      const named = new Set(found.map((v) => v.split(':')[0]));
      expect(config.default.forbidden.map((rule) => rule.name).filter((name) => !named.has(name))).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );

  // The repository itself is cruised by `npm run lint:deps`, which `npm test` runs beside these tests:
  // cruising it here again cost a second whole run (tests/README.md "Tests").
});
