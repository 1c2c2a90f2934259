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
];
