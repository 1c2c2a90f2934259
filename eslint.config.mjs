// Lint: the layer boundaries (eslint/layers.mjs). Syntax-only parsing (no type information), so `npm run lint` stays fast.
import tseslint from 'typescript-eslint';
import layers from './eslint/layers.mjs';

export default [
  { ignores: ['.next/**', 'node_modules/**', 'lib/db/generated*/**', 'data/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts'] },
  {
    files: ['**/*.{ts,tsx,mts,mjs,js}'],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  {
    // Each e2e spec file starts from the seeded demo (e2e/test.ts), never from another file's leftovers. A warning:
    // a spec that forgets only misses its reset (the next file resets anyway).
    files: ['e2e/**/*.spec.ts', 'scripts/**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['warn', { paths: [{ name: '@playwright/test', importNames: ['test'], message: "import { test } from './test' (e2e/test.ts): each spec file then starts from the seeded demo." }] }] },
  },
];
