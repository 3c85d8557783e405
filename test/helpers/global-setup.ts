/**
 * vitest globalSetup: migrate once per run, then every test file starts from a copy.
 *
 * - Embedded leg: a fresh in-memory PGlite is migrated here and dumped to a tarball; each file
 *   opens its own in-memory PGlite from it (test/helpers/per-file-database.ts), skipping the
 *   cluster creation's catalog work and every migration.
 * - PostgreSQL leg (TEST_DATABASE_URL): the named database is the run's; a migrated template
 *   `<name>_tpl` is made here, each file gets `CREATE DATABASE <name>_f<n> TEMPLATE <name>_tpl`, so
 *   files can run side by side without sharing rows. Teardown drops the template and every copy.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/db/database.ts';
import { startPgbouncer } from '../../scripts/lib/pgbouncer.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the migrated PGlite data directory tarball (embedded leg). */
    pgliteSnapshot: string | null;
    /** The template database's name (PostgreSQL leg). */
    postgresTemplate: string | null;
    /** TEST_VIA_PGBOUNCER=1: the port of a PgBouncer (transaction mode) every file's copy is reached through. */
    pgbouncerPort: number | null;
  }
}

/** A database name the run owns, safe to inline in SQL (letters, digits and underscores only). */
export function quotedName(name: string): string {
  if (!/^[a-z0-9_]{1,63}$/.test(name)) throw new Error(`unexpected database name ${JSON.stringify(name)}`);
  return `"${name}"`;
}

async function onServer<T>(baseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const url = new URL(baseUrl);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let cleanup: (() => Promise<void>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  const baseUrl = process.env.TEST_DATABASE_URL || undefined;
  if (baseUrl === undefined) {
    const db = await openDatabase({ databaseUrl: undefined, dataDir: 'memory://' });
    await db.migrate();
    const folder = mkdtempSync(join(tmpdir(), 'agency-test-'));
    const path = join(folder, 'migrated-pglite.tar');
    writeFileSync(path, await db.dumpSnapshot());
    await db.close();
    project.provide('pgliteSnapshot', path);
    project.provide('postgresTemplate', null);
    project.provide('pgbouncerPort', null);
    cleanup = async () => rmSync(folder, { recursive: true, force: true });
    return;
  }
  const base = new URL(baseUrl).pathname.slice(1);
  const template = `${base}_tpl`;
  await onServer(baseUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS ${quotedName(template)} WITH (FORCE)`);
    await client.query(`CREATE DATABASE ${quotedName(template)}`);
  });
  const url = new URL(baseUrl);
  url.pathname = `/${template}`;
  const db = await openDatabase({ databaseUrl: url.toString(), dataDir: 'memory://', poolSize: 1 });
  await db.migrate();
  await db.close();
  project.provide('pgliteSnapshot', null);
  project.provide('postgresTemplate', template);
  // The databases are made and dropped directly (CREATE DATABASE ... TEMPLATE needs the template
  // without connections, which a pooler keeps open); the tests' own traffic goes through PgBouncer.
  const bouncer =
    process.env.TEST_VIA_PGBOUNCER === '1'
      ? await startPgbouncer({ server: new URL(baseUrl).host, poolMode: 'transaction', serverPool: 8 })
      : null;
  project.provide('pgbouncerPort', bouncer?.port ?? null);
  cleanup = async () => {
    await bouncer?.stop();
    await dropCopies(baseUrl, base, template);
  };
}

async function dropCopies(baseUrl: string, base: string, template: string): Promise<void> {
  await onServer(baseUrl, async (client) => {
    const copies = await client.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`,
      [`${base}\\_f%`, template],
    );
    for (const { datname } of copies.rows) {
      await client.query(`DROP DATABASE IF EXISTS ${quotedName(datname)} WITH (FORCE)`);
    }
  });
}

export async function teardown(): Promise<void> {
  await cleanup?.();
}
