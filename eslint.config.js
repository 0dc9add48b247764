// Lint: typescript-eslint recommended rules, plus the layering rules of STYLE.md (who may import what).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const layer = (files, patterns, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }] },
});

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', '*.mts', 'postcss.config.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-empty-pattern': 'off',
    },
  },
  // The core reaches its store through an asynchronous port (issue 17): a promise left floating is a write that may
  // run outside its transaction, or an error nobody sees. Type-aware, for the main process and its tests.
  {
    files: ['src-main/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  // Tests read JSON bodies of many shapes; `any` there is a reading aid, not a type hole in product code.
  { files: ['test/**', 'e2e/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  layer(['src-shared/**'], ['**/src-main/**', '**/src-renderer/**', 'node:*', 'electron', 'fastify', 'better-sqlite3'], 'Bad layering: src-shared is pure and imports neither doors nor node.'),
  layer(['src-renderer/**'], ['node:*', 'electron', '**/src-main/**'], 'Bad layering: the renderer talks to the main process only through the console contract.'),
  layer(['src-main/core/**'], ['fastify', 'fastify-*', '@fastify/*', 'electron'], 'Bad layering: core/ holds no HTTP or Electron code.'),
  layer(['src-main/{store,providers,jobs,http,console,cli}/**', 'src-main/*.ts'], ['electron'], 'Bad layering: only src-main/electron/ imports electron.'),
);
