import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutProblems, readLayout } from '../support/manual-layout';

// README.md "Layout" draws the tree; folders move under it (a feature split, a new module), and
// nothing else would notice the drawing going stale.
const ROOT = path.resolve(import.meta.dirname, '../..');

const DRAWING = [
  '# A fixture',
  '',
  '## Layout',
  '',
  '```',
  'client/src/   the SPA',
  '              app.tsx, main.tsx',
  '  features/   inbox/         the inbox',
  '              conversation/  the thread',
  '                             and its pages',
  '  lib/        the tRPC client',
  'server/       see server/ARCHITECTURE.md',
  '  core/       config',
  '  trpc/       one initTRPC',
  '  auth/ audit/',
  '              features',
  '  dev/provider-sim/   the simulator',
  'tests/        the tests',
  '.ci/run       CI entry point',
  'eslint.config.js, .prettierrc.json   lint and format',
  '```',
  '',
].join('\n');

describe('README.md "Layout"', () => {
  let fixture = '';
  beforeAll(async () => {
    fixture = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-layout-'));
    const folders = [
      'client/src/features/inbox',
      'client/src/features/conversation',
      'client/src/features/notifications',
      'client/src/lib',
    ];
    folders.push('server/core', 'server/auth', 'server/audit', 'server/conversations', 'server/dev/provider-sim', 'tests', 'docs');
    for (const folder of folders) {
      await mkdir(path.join(fixture, folder), { recursive: true });
      await writeFile(path.join(fixture, folder, 'index.ts'), ''); // git keeps no empty folder, nor does the check
    }
    await writeFile(path.join(fixture, 'README.md'), DRAWING);
    await writeFile(path.join(fixture, 'eslint.config.js'), '');
    await writeFile(path.join(fixture, '.prettierrc.json'), '{}');
  });
  afterAll(() => rm(fixture, { recursive: true, force: true }));

  it('draws every folder of the tree and none that is gone', () => {
    expect(layoutProblems(ROOT)).toEqual([]);
  });

  it('names the line of a folder drawn but gone, a folder not drawn, and a top-level one left out', () => {
    expect(layoutProblems(fixture)).toEqual([
      'README.md:8: client/src/features/notifications/ exists but is not drawn under client/src/features/',
      'README.md:12: server/conversations/ exists but is not drawn under server/',
      'README.md:14: server/trpc/ is drawn but does not exist',
      'README.md:19: .ci/run is drawn but does not exist',
      'README.md: docs/ exists but is not drawn in "Layout"',
    ]);
  });

  it('reads several folders on one line and the first folder inside on its parent’s line', () => {
    const drawn = (entries: ReturnType<typeof readLayout>): string[] => entries.flatMap((entry) => [entry.path, ...drawn(entry.children)]);
    expect(drawn(readLayout(DRAWING))).toEqual([
      'client/src/',
      'client/src/features/',
      'client/src/features/inbox/',
      'client/src/features/conversation/',
      'client/src/lib/',
      'server/',
      'server/core/',
      'server/trpc/',
      'server/auth/',
      'server/audit/',
      'server/dev/provider-sim/',
      'tests/',
      '.ci/run',
      'eslint.config.js',
      '.prettierrc.json',
    ]);
  });
});
