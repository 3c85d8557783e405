import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { inject } from 'vitest';
import { buildApp, type AppDependencies } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, queryRows, type Database } from '../../src/db/database.ts';
import { checkResponsesAgainstDocument } from './response-contract.ts';

/** Admin token of every test app. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * `TEST_DATABASE_URL` selects PostgreSQL (the CI's second leg): it names the running file's own copy of
 * the migrated template (test/helpers/per-file-database.ts rewrites the environment variable before
 * each file, then calls `startFile`). Unset, each file gets an in-memory PGlite opened from the run's
 * migrated snapshot (test/helpers/global-setup.ts). `TEST_REDIS_URL` is the Redis the shared-limit
 * tests use.
 */
export let TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

let forkDatabase: { url: string | undefined; db: Promise<Database> } | undefined;

/**
 * The running file's migrated database, opened on first use; files share no rows. On PostgreSQL it is
 * the file's own copy of the template. On PGlite a worker keeps one in-memory database for the files
 * it runs one after the other (isolate: false keeps this module), emptied before each file by
 * `startFile`: a new PGlite per file cost 0.5 to 2 s of start and warm-up each (docs/development.md).
 */
export function testDatabase(): Promise<Database> {
  if (forkDatabase === undefined || forkDatabase.url !== TEST_DATABASE_URL) {
    forkDatabase = { url: TEST_DATABASE_URL, db: openTestDatabase(TEST_DATABASE_URL) };
  }
  return forkDatabase.db;
}

/**
 * Called by the setup file before each test file (the previous file's apps are closed by then, in
 * its own afterAll): takes the new file's `TEST_DATABASE_URL`, then closes the previous file's
 * PostgreSQL copy, or empties the worker's PGlite of every row the previous file wrote.
 */
export async function startFile(): Promise<void> {
  TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
  if (forkDatabase === undefined) return;
  const previous = forkDatabase;
  if (previous.url !== TEST_DATABASE_URL) {
    forkDatabase = undefined;
    await (await previous.db).close();
    return;
  }
  await (
    await previous.db
  ).systemTx(async (tx) => {
    // The tables are the migrations' and start empty (no migration inserts rows); the session user
    // owns them, the system role may not truncate.
    await tx.execute(sql`RESET ROLE`);
    const tables = await queryRows<{ name: string }>(
      tx,
      sql`SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = 'public'`,
    );
    await tx.execute(sql.raw(`TRUNCATE ${tables.map((table) => table.name).join(', ')}`));
  });
}

/**
 * A database of the caller's own, for a file whose checks span every row (start steps that walk
 * all tenants): a fresh PGlite from the snapshot, or the file's PostgreSQL copy. Close it when done.
 */
export async function openTestDatabase(
  databaseUrl = process.env.TEST_DATABASE_URL || undefined,
): Promise<Database> {
  const snapshotPath = databaseUrl === undefined ? inject('pgliteSnapshot') : null;
  const db = await openDatabase({
    databaseUrl,
    dataDir: 'memory://',
    poolSize: 5,
    preparedStatements: process.env.TEST_DATABASE_PREPARED_STATEMENTS !== 'false',
    pgliteSnapshot: snapshotPath ? new Blob([readFileSync(snapshotPath)]) : undefined,
  });
  // Nothing to apply on a copy of the migrated database; kept so a stale snapshot cannot pass.
  await db.migrate();
  return db;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', ADMIN_TOKEN, LOG_LEVEL: 'silent', DATA_DIR: 'memory://', ...env });
}

/** A fresh app on this file's database. Close it when done (it does not close the database). */
export async function buildTestApp(
  env: Record<string, string> = {},
  deps: Partial<AppDependencies> = {},
): Promise<FastifyInstance> {
  const db = deps.db ?? (await testDatabase());
  const app = await buildApp(testConfig(env), { ...deps, db });
  checkResponsesAgainstDocument(app);
  await app.ready();
  return app;
}
