import { defineConfig } from 'vitest/config';

/** Test files side by side: each has its own copy of the migrated database, so they share no rows. */
const workers = Number(process.env.TEST_WORKERS || 2);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
    // A worker keeps its loaded modules from one file to the next instead of importing and
    // transforming the whole service again for every file (that was most of a run's CPU time). Files
    // still share nothing that matters: each makes its own organizations, apps and keys.
    isolate: false,
    // Migrates once per run (a PGlite snapshot, or a PostgreSQL template database) ...
    globalSetup: ['test/helpers/global-setup.ts'],
    // ... and gives every test file its own copy of it.
    setupFiles: ['test/helpers/per-file-database.ts'],
    testTimeout: 30_000,
    // A file's start (its database copy, its organizations) shares two cores with other files and legs.
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
