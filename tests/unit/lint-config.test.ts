import { ESLint } from 'eslint';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { match } from '../support/matchers';

// `npm test` starts with the format check and the lint: these prove they check something. A config
// that ignored a folder, or lost its type information or a plugin, would let both pass on any code.
// ESLint lints each snippet as if it were the file at `filePath` (only in memory): the type-aware
// rules need a file that tsconfig.json includes.

const eslint = new ESLint();
const rulesOf = async (text: string, filePath: string) => (await eslint.lintText(text, { filePath }))[0]!.messages.map((m) => m.ruleId);

// The first type-aware lint builds the whole program: seconds, not milliseconds.
describe('the lint', { timeout: 60_000 }, () => {
  it('reaches every source folder and skips only what is generated or local', async () => {
    for (const file of [
      'client/src/main.tsx',
      'server/main.ts',
      'shared/phone.ts',
      'tests/unit/phone.test.ts',
      'vite.config.ts',
      'eslint.config.js',
    ]) {
      expect(await eslint.isPathIgnored(file), file).toBe(false);
    }
    for (const file of ['dist/client/assets/index.js', '.data/pg/x.js', 'bench/results/latest.js']) {
      expect(await eslint.isPathIgnored(file), file).toBe(true);
    }
  });

  it('finds a floating promise, an interface, and the React hooks rules broken in a client component', async () => {
    const component = [
      "import { useEffect, useState } from 'react';",
      'export interface TProps { start: number }',
      'export function Counter({ start }: TProps) {',
      '  const [count, setCount] = useState(start);',
      '  useEffect(() => {',
      '    setCount(start + count);',
      '  }, []);',
      "  fetch('/api/health');",
      '  return count;',
      '}',
    ].join('\n');
    const found = await rulesOf(component, 'client/src/features/composer/file-picker.tsx');
    expect(found).toEqual(
      match.arrayContaining([
        '@typescript-eslint/no-floating-promises',
        '@typescript-eslint/consistent-type-definitions',
        'react-hooks/exhaustive-deps',
        'react-hooks/set-state-in-effect',
      ]),
    );
  });

  it('finds untyped JSON used as a value, a type imported as a value, and imports out of order on the server', async () => {
    const route = [
      "import { loadConfig } from '../config';",
      "import { readFile } from 'node:fs/promises';",
      "import { TConfig } from '../config';",
      'export async function readPort(file: string, config: TConfig = loadConfig()) {',
      "  const parsed = JSON.parse(await readFile(file, 'utf8'));",
      '  return { port: parsed.port as number, config };',
      '}',
    ].join('\n');
    const found = await rulesOf(route, 'server/http/health-route.ts');
    expect(found).toEqual(
      match.arrayContaining([
        'perfectionist/sort-imports',
        '@typescript-eslint/consistent-type-imports',
        '@typescript-eslint/no-unsafe-assignment',
        '@typescript-eslint/no-unsafe-member-access',
      ]),
    );
  });
});

describe('the format check', () => {
  it('holds source files to the config and leaves out fixtures and prose', async () => {
    const options = await prettier.resolveConfig('server/main.ts');
    expect(options).toMatchObject({ printWidth: 140, singleQuote: true, trailingComma: 'all' });
    expect(await prettier.check('const greeting = "hello"\n', { ...options, filepath: 'server/main.ts' })).toBe(false);
    expect(await prettier.check("const greeting = 'hello';\n", { ...options, filepath: 'server/main.ts' })).toBe(true);
    const ignorePath = ['.gitignore', '.prettierignore'];
    expect((await prettier.getFileInfo('server/main.ts', { ignorePath })).ignored).toBe(false);
    expect((await prettier.getFileInfo('tests/fixtures/peer-webhooks/LICENSE', { ignorePath })).ignored).toBe(true);
    expect((await prettier.getFileInfo('README.md', { ignorePath })).ignored).toBe(true);
  });
});
