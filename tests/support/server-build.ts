import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The scripts tests start as processes, built once per run (tests/README.md "Tests"). */
export const BUILT_SCRIPTS = [
  'server/main.ts',
  'server/scripts/start.ts',
  'server/scripts/seed-demo.ts',
  'server/scripts/backup.ts',
  'server/scripts/restore.ts',
  'server/scripts/user-add.ts',
  'server/scripts/verify-audit.ts',
  'server/scripts/export-verify.ts',
  'tests/support/exit-code-probe.ts',
] as const;

// Each module keeps its own place: `import.meta.dirname` and `.url` are written in as the source
// file's, so files found beside a module (fonts, seed assets, the PDF worker, dist/client) are
// found as they are under tsx, though every module now runs from one bundle.
const ownPlace: Plugin = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.tsx?$/ }, async ({ path: file }) => {
      if (file.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const source = await readFile(file, 'utf8');
      const contents = source
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
        .replaceAll('import.meta.filename', JSON.stringify(file))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href));
      return { contents, loader: file.endsWith('x') ? 'tsx' : 'ts' };
    });
  },
};

export type TServerBuild = { dir: string; remove: () => Promise<void> };

/**
 * The server and its scripts bundled once (packages left to node_modules), into a directory under
 * node_modules/.cache so their packages resolve as the sources' do: a process then starts in about
 * half the CPU a start through tsx's loader takes, which transpiles and resolves every module anew.
 */
export async function buildServer(): Promise<TServerBuild> {
  const parent = path.join(ROOT, 'node_modules/.cache');
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(path.join(parent, 'firm-chat-server-'));
  await build({
    absWorkingDir: ROOT,
    entryPoints: BUILT_SCRIPTS.map((script) => ({ in: script, out: script.replace(/\.ts$/, '') })),
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Sequelize names a model after its class: a class esbuild renamed apart from another would rename the model.
    keepNames: true,
    sourcemap: 'inline',
    logLevel: 'warning',
    plugins: [ownPlace],
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** The built file of `script` in `dir`, or null when it is not one of the built scripts. */
export function builtScript(dir: string, script: string): string | null {
  return (BUILT_SCRIPTS as readonly string[]).includes(script) ? path.join(dir, script.replace(/\.ts$/, '.mjs')) : null;
}

/**
 * How a test starts `script` with node: its build when the run made one (the tests' global setup),
 * else the source through tsx's loader, as `npm run` runs it (the benchmark, a file run alone).
 */
export function nodeArgsFor(script: string): string[] {
  const dir = process.env.FIRM_CHAT_TEST_SERVER_BUILD;
  const built = dir ? builtScript(dir, script) : null;
  return built ? [built] : ['--import', 'tsx', script];
}
