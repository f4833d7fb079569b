// One ESLint config for the whole repository: typescript-eslint's type-aware recommended rules,
// the React hooks rules for the SPA, and one import order. Formatting is Prettier's job
// (.prettierrc.json), so no rule here is about layout.
import js from '@eslint/js';
import perfectionist from 'eslint-plugin-perfectionist';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  globalIgnores(['.*/', 'dist/', '.data/', 'bench/results/', 'tests/e2e/screenshots/', 'coverage/']),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.node,
    },
    plugins: { perfectionist },
    rules: {
      // The house style: `type` over `interface`, and `import type` for types.
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // Imports in the order the code already keeps: node's, packages, then the repo's own.
      'perfectionist/sort-imports': [
        'error',
        {
          type: 'unsorted',
          groups: [['builtin', 'external'], 'parent', 'sibling', 'index'],
          newlinesBetween: 0,
        },
      ],
    },
  },
  {
    // One way to the database (server/ARCHITECTURE.md "One database handle"): `db()`, never a
    // model's `.sequelize!` or a pool handed along. Only server/core/db opens and migrates pools.
    files: ['server/**/*.ts'],
    ignores: ['server/core/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[property.name='sequelize']",
          message: "Use db() from server/core/db/db.ts: one handle, not a model's or a parameter's pool.",
        },
      ],
    },
  },
  {
    files: ['client/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
    languageOptions: { globals: globals.browser },
  },
  {
    // Product code reads in short parts (server/ARCHITECTURE.md "The rule"): a file does one thing, a
    // function fits on a screen or two. Frozen migrations and the demo seed's data are exempt.
    files: ['server/**/*.ts', 'client/src/**/*.{ts,tsx}', 'shared/**/*.ts'],
    ignores: ['server/core/db/migrations/**', 'server/seed/**', 'server/dev/**'],
    rules: {
      'max-lines': ['error', { max: 400 }],
      'max-lines-per-function': ['error', { max: 150 }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
