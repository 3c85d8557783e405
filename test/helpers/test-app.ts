import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { buildApp, type AppDependencies } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { checkResponsesAgainstDocument } from './response-contract.ts';

/** Admin token of every test app. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * `TEST_DATABASE_URL` selects PostgreSQL (the CI's second leg): by the time a test file runs it names
 * the file's own copy of the migrated template (test/helpers/per-file-database.ts). Unset, each test
 * file gets an in-memory PGlite opened from the run's migrated snapshot (test/helpers/global-setup.ts).
 * `TEST_REDIS_URL` is the Redis the shared-limit tests use.
 */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

let shared: Promise<Database> | undefined;

/** One migrated database per test file (tests isolate by creating their own organizations). */
export function testDatabase(): Promise<Database> {
  shared ??= openTestDatabase(TEST_DATABASE_URL);
  return shared;
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
