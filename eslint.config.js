import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'db/**',
      '.cache/**',
      // Written by `npm run client:generate`, checked by CI against the API.
      'clients/typescript/src/generated/**',
      'clients/typescript/dist/**',
      'clients/typescript/node_modules/**',
      // CommonJS configuration of dependency-cruiser (npm run lint:imports).
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports (STYLE.md).' },
      ],
    },
  },
  {
    // One caller (decision 0241): a tenant transaction opens from the request's caller (readAs/writeAs,
    // platform/tenancy/caller-tx.ts), never on an organization id passed along. A place that truly has no
    // caller (a worker job, the idempotency record at the edge) says why in an eslint-disable comment.
    files: ['src/**/*.ts'],
    ignores: ['src/platform/tenancy/caller-tx.ts', 'src/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportDefaultDeclaration', message: 'Use named exports (STYLE.md).' },
        {
          selector: 'CallExpression[callee.property.name=/^(tenantTx|readTx)$/]',
          message:
            'Open tenant transactions from the caller: readAs/writeAs (platform/tenancy/caller-tx.ts, decision 0241).',
        },
        {
          selector: 'CallExpression[callee.name="inTenantOrganization"]',
          message:
            'Open tenant transactions from the caller: readAs/writeAs (platform/tenancy/caller-tx.ts, decision 0241).',
        },
      ],
    },
  },
  {
    // platform/ is machinery: it must never reach into a feature (STYLE.md "Dependencies point one way").
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/features/**'] }],
    },
  },
  {
    // The demo portal page runs in the browser (plain ES modules, no build step).
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'navigator',
          'fetch',
          'URL',
          'URLSearchParams',
          'FormData',
          'crypto',
          'CSS',
          'Intl',
          'setTimeout',
          'setInterval',
          'clearInterval',
          'globalThis',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    // The client's examples are plain Node scripts.
    files: ['clients/typescript/examples/**/*.mjs'],
    languageOptions: { globals: { Buffer: 'readonly' } },
  },
  {
    files: ['eslint.config.js', 'vitest.config.ts', 'drizzle.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
