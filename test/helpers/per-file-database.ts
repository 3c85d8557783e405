/**
 * vitest setupFiles: before a test file's own imports, points it at its own copy of the migrated
 * database made by test/helpers/global-setup.ts. On PostgreSQL that is a database created from the
 * template, and TEST_DATABASE_URL is rewritten to it, so everything the file starts (apps, worker
 * processes, CLI servers) uses the copy; on PGlite, testDatabase() loads the snapshot.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import pg from 'pg';
import { verifyStatementCaches } from '../../src/db/statements.ts';
import { contractViolations } from './response-contract.ts';

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
  process.env.TEST_DATABASE_URL = url.toString();
}
