/**
 * vitest setupFiles, before each test file's own imports. It gives the file a database of its own: on
 * PostgreSQL a copy of the migrated template (test/helpers/global-setup.ts), named by
 * TEST_DATABASE_URL for the file's in-process apps and the processes it starts (workers, CLI
 * servers); on PGlite an in-memory database opened from the run's snapshot on first use
 * (test/helpers/test-app.ts). It also checks every answer against the document and reports
 * event-loop stalls.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import pg from 'pg';
import { verifyStatementCaches } from '../../src/db/statements.ts';
import { contractViolations } from './response-contract.ts';
import { startFile } from './test-app.ts';

// Every answer of a test app is checked against the document it serves (test/helpers/response-contract.ts).
beforeAll(() => {
  contractViolations.length = 0;
});
afterAll(() => {
  const found = [...new Set(contractViolations.splice(0))];
  if (found.length > 0) {
    throw new Error(`answers that do not match /v1/openapi.json:\n  ${found.slice(0, 20).join('\n  ')}`);
  }
});

// A stalled event loop (a long GC, a synchronous WASM call) shows up as late timers everywhere in the
// fork: say so on stderr, with the memory at that moment, so a late delivery or a timeout can be told
// from a product bug.
const STALL_MS = 1_500;
// One watch per fork: this file runs again for every test file of the fork (isolate: false).
const forkGlobals = globalThis as { agencyLoopWatch?: NodeJS.Timeout };
if (forkGlobals.agencyLoopWatch === undefined) {
  let lastTick = performance.now();
  forkGlobals.agencyLoopWatch = setInterval(() => {
    const now = performance.now();
    const gap = now - lastTick - 250;
    lastTick = now;
    if (gap > STALL_MS) {
      const { rss, heapUsed, external } = process.memoryUsage();
      const mb = (n: number) => Math.round(n / 1e6);
      const state = expect.getState();
      console.error(
        `[event-loop] stalled ${Math.round(gap)} ms in ${state.testPath ?? '?'} > ${state.currentTestName ?? '(hooks)'} ` +
          `(rss ${mb(rss)} MB, heap ${mb(heapUsed)} MB, external ${mb(external)} MB)`,
      );
    }
  }, 250).unref();
}

// Statement caches compile every call too and throw when a cached shape differs (src/db/statements.ts).
verifyStatementCaches(true);

const template = inject('postgresTemplate');
// A fork runs several files one after the other and keeps its environment: remember the run's own
// database, which every file's copy is named after.
process.env.AGENCY_TEST_RUN_DATABASE_URL ??= process.env.TEST_DATABASE_URL || '';
const baseUrl = process.env.AGENCY_TEST_RUN_DATABASE_URL || undefined;

if (template && baseUrl) {
  const url = new URL(baseUrl);
  const name = `${url.pathname.slice(1)}_f${randomBytes(6).toString('hex')}`;
  const admin = new URL(baseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    // Names are the run's own (letters, digits, underscores), checked by global-setup's quotedName.
    await client.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  } finally {
    await client.end();
  }
  url.pathname = `/${name}`;
  // TEST_VIA_PGBOUNCER=1: through PgBouncer in transaction mode, without named prepared statements
  // (PgBouncer 1.18 has none), as docs/scaling.md tells operators to run it.
  const bouncerPort = inject('pgbouncerPort');
  if (bouncerPort) {
    url.port = String(bouncerPort);
    process.env.TEST_DATABASE_PREPARED_STATEMENTS = 'false';
  }
  process.env.TEST_DATABASE_URL = url.toString();
}

// The previous file's database closes, and this file's is opened on first use.
await startFile();
