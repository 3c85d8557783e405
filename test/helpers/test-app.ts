import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { inject } from 'vitest';
import { buildApp, type AppDependencies } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { checkResponsesAgainstDocument } from './response-contract.ts';

/** Admin token of every test app. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * `TEST_DATABASE_URL` selects PostgreSQL (the CI's second leg): when this module is first imported
 * in a fork it names that file's copy of the migrated template (test/helpers/per-file-database.ts);
 * the fork's later files keep using it (isolate: false keeps this module), while the processes they
 * start read their own file's copy from the environment. Unset, the fork gets an in-memory PGlite
 * opened from the run's migrated snapshot (test/helpers/global-setup.ts).
 * `TEST_REDIS_URL` is the Redis the shared-limit tests use.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

let shared: Promise<Database> | undefined;

/**
 * The migrated database of this fork. Files share it (isolate: false keeps this module, and its
 * handle, from one file to the next), so tests isolate by creating their own organizations.
 */
export function testDatabase(): Promise<Database> {
  shared ??= openTestDatabase(TEST_DATABASE_URL);
  return shared;
}

/**
 * Called before each file: deliveries an earlier file of this fork left PENDING (its receivers are
 * closed, its worker stopped) are ended, or this file's worker, which claims every due delivery of
 * the database as a real worker does, would spend its slots and time limits on them.
 */
export async function endEarlierFilesDeliveries(): Promise<void> {
  if (shared === undefined) return;
  await (
    await shared
  ).systemTx((tx) =>
    tx.execute(
      sql`UPDATE webhook_deliveries SET status = 'FAILED', next_attempt_at = NULL, locked_until = NULL,
            claim_id = NULL, last_error = 'an earlier test file ended', completed_at = now()
          WHERE status = 'PENDING'`,
    ),
  );
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
