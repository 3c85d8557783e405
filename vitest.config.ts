import { configDefaults, defineConfig } from 'vitest/config';
import { CHROMIUM_INSTALL_HINT, browserTestsSkipped, chromiumPath } from './test/helpers/chromium.ts';

/** Test files side by side: each has its own copy of the migrated database, so they share no rows. */
const workers = Number(process.env.TEST_WORKERS || 2);

// Without Chromium (a fresh machine after `npm install`) the browser files are left out, saying how to
// run them; under CI=true they stay in and fail (test/helpers/chromium.ts).
const skipBrowser = browserTestsSkipped();
if (skipBrowser) {
  console.warn(
    `\nNOTICE: browser tests skipped (test/browser/*.test.ts): no Chromium at ${chromiumPath()}.\n` +
      `To run them, ${CHROMIUM_INSTALL_HINT}. With CI=true a missing browser fails instead.\n`,
  );
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: skipBrowser ? [...configDefaults.exclude, 'test/browser/**'] : configDefaults.exclude,
    // `vitest run test/browser` without Chromium: the notice, then success, not "no test files".
    passWithNoTests: skipBrowser,
    pool: 'forks',
    maxWorkers: workers,
    minWorkers: 1,
    // A worker keeps its loaded modules from one file to the next instead of importing and
    // transforming the whole service again for every file (that was most of a run's CPU time). Files
    // share no rows: each starts on an empty database (test/helpers/test-app.ts, startFile).
    isolate: false,
    // Migrates once per run (a PGlite snapshot, or a PostgreSQL template database) ...
    globalSetup: ['test/helpers/global-setup.ts'],
    // ... and gives every test file its own copy of it.
    setupFiles: ['test/helpers/per-file-database.ts'],
    testTimeout: 30_000,
    // expect.poll's own default (1 s) is shorter than the event-loop stalls of a busy fork (a PGlite
    // opening, an app being built: seconds on two shared cores), and the browser tests poll the page.
    expect: { poll: { timeout: 10_000 } },
    // A file's start (its database copy, its organizations) shares two cores with other files and legs.
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
