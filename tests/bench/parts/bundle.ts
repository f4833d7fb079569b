import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { ROOT, type TBenchTools } from '../bench-support';

// Part 4, the client bundle: a production build, and the gzipped size of what the first page loads.

export async function benchBundle(tools: TBenchTools) {
  console.log('\n== 4. Client bundle (production build)');
  // Built into a directory of its own: dist/client may be served meanwhile (CI runs the bench beside the tests).
  const dist = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-bench-bundle-'));
  try {
    await build({ configFile: path.join(ROOT, 'vite.config.ts'), logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
    await reportSizes(dist, tools);
  } finally {
    await rm(dist, { recursive: true, force: true });
  }
}

async function reportSizes(dist: string, tools: TBenchTools) {
  const html = await readFile(path.join(dist, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(js|css))"/g)].map((m) => ({ file: m[1]!, kind: m[2]! }));
  for (const kind of ['js', 'css']) {
    let raw = 0;
    let gzip = 0;
    for (const f of files.filter((x) => x.kind === kind)) {
      const content = await readFile(path.join(dist, f.file));
      raw += content.length;
      gzip += gzipSync(content, { level: 9 }).length;
    }
    tools.report({
      part: 'bundle',
      name: `initial ${kind.toUpperCase()} (raw ${(raw / 1024).toFixed(1)} KB)`,
      value: gzip / 1024,
      unit: 'KB gzip',
      ...(kind === 'js'
        ? { ceiling: 120, ceilingName: 'target', ratio: gzip / 1024 / 120, target: '≤ 120 KB gzip', pass: gzip / 1024 <= 120 }
        : {}),
    });
  }
}
