import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    // Each file opens one database (a fresh in-memory PGlite, or the PostgreSQL of TEST_DATABASE_URL).
    testTimeout: 30_000,
    // A file's start (a fresh PGlite migrated, its organizations made) shares two cores with another leg in CI.
    hookTimeout: 120_000,
    reporters: ['default'],
    // Statement caches compile every call too and throw when a cached shape differs (src/db/statements.ts).
    env: { AGENCY_VERIFY_STATEMENT_CACHE: '1' },
  },
});
