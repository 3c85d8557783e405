import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgTable } from 'drizzle-orm/pg-core';
import { CONFIG_DEFAULTS } from '../config.ts';
import {
  lastApplied,
  MIGRATIONS_FOLDER,
  pendingAfter,
  preludeStatements,
  withHelpers,
  type Database,
  type Tx,
} from './driver.ts';
import { clearDataDir, isEmptyDataDir, readTemplate, saveTemplate, templatePath } from './pglite-template.ts';
import { openPostgres, type PostgresSettings } from './postgres.ts';
import { currentReadProbe } from './read-probe.ts';
import * as schema from './schema.ts';

export type { Database, DbRole, PoolStats, Schema, TransactionOptions, Tx } from './driver.ts';
export type { ReplicaStatus } from './replicas.ts';
export { MIGRATIONS_FOLDER } from './driver.ts';
export type { PostgresSettings } from './postgres.ts';

/**
 * A list's `meta.total` is exact up to this many matches; past it the count stops and the answer says
 * "at least" (`meta.totalIsLowerBound`, docs/decisions/0229): counting every match of a 1M-row agency
 * on every page costs more than the page itself, and no reader needs the exact figure past this.
 */
export const COUNT_LIMIT = 10_000;

/**
 * `(SELECT count(*) FROM (SELECT 1 FROM table WHERE where LIMIT COUNT_LIMIT + 1))` as a select field: a
 * list page and its bounded total in one statement. Uncorrelated, so PostgreSQL computes it once (an
 * InitPlan), whatever the page size; it reads at most COUNT_LIMIT + 1 matches, so a result above
 * COUNT_LIMIT means "more than COUNT_LIMIT" (`countedPageMeta` turns it into a flagged lower bound).
 */
export function countOf(table: PgTable, where: SQL | undefined): SQL.Aliased<number> {
  const limit = sql.raw(String(COUNT_LIMIT + 1));
  return sql<number>`(SELECT count(*) FROM (SELECT 1 FROM ${table} WHERE ${where ?? sql`true`} LIMIT ${limit}) AS counted)`
    .mapWith(Number)
    .as('total');
}

/**
 * The total of a page fetched with `countOf`: carried by its rows; zero for an empty first page;
 * counted on its own only for an empty page past the first (the one case without a row to carry it).
 */
export async function totalOf(
  tx: Tx,
  rows: readonly { total: number }[],
  page: { offset: number },
  table: PgTable,
  where: SQL | undefined,
): Promise<number> {
  if (rows[0] !== undefined) return rows[0].total;
  if (page.offset === 0) return 0;
  return countMatches(tx, table, where);
}

/** `countOf` in a statement of its own: for a list that reads its page and its total apart. */
export async function countMatches(tx: Tx, table: PgTable, where: SQL | undefined): Promise<number> {
  const counted = await tx.select({ total: countOf(table, where) }).from(sql`(SELECT 1) AS one`);
  return counted[0]?.total ?? 0;
}

export interface OpenDatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  /** PostgreSQL only (DATABASE_POOL_SIZE): connections this process opens at most. */
  poolSize?: number;
  /** PostgreSQL only; the fault tests shorten them (docs/reliability.md). */
  timeouts?: Partial<Pick<PostgresSettings, 'statementMs' | 'connectMs' | 'idleInTransactionMs'>>;
  /** PostgreSQL only (DATABASE_PREPARED_STATEMENTS): false behind a pooler without prepared statements. */
  preparedStatements?: boolean;
  /** PostgreSQL only (DATABASE_MIGRATION_URL): migrations connect here instead of `databaseUrl`. */
  migrationUrl?: string;
  /** PostgreSQL only (DATABASE_READ_URL, DATABASE_READ_MAX_LAG_MS): read replicas and their lag limit. */
  replicas?: { urls: readonly string[]; maxLagMs: number; probeMs?: number; redisUrl?: string };
  /**
   * In-memory PGlite only: start from this data directory (a `dumpDataDir()` tarball) instead of an
   * empty cluster. The tests start every file from one migrated snapshot.
   */
  pgliteSnapshot?: Blob;
  /** PGlite only: where the migrated template is kept (src/db/pglite-template.ts); its tests use their own. */
  pgliteTemplateDir?: string;
}

/** The database settings of the operator interface (src/config.ts), as `openDatabase` takes them. */
export function databaseOptions(config: {
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
  databaseStatementTimeoutMs: number;
  databaseIdleInTransactionTimeoutMs: number;
  databaseConnectTimeoutMs: number;
  databasePreparedStatements: boolean;
  databaseMigrationUrl: string | undefined;
  databaseReadUrls: readonly string[];
  databaseReadMaxLagMs: number;
  redisUrl: string | undefined;
}): OpenDatabaseOptions {
  return {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: config.databasePoolSize,
    timeouts: {
      statementMs: config.databaseStatementTimeoutMs,
      idleInTransactionMs: config.databaseIdleInTransactionTimeoutMs,
      connectMs: config.databaseConnectTimeoutMs,
    },
    preparedStatements: config.databasePreparedStatements,
    ...(config.databaseMigrationUrl ? { migrationUrl: config.databaseMigrationUrl } : {}),
    replicas: {
      urls: config.databaseReadUrls,
      maxLagMs: config.databaseReadMaxLagMs,
      ...(config.redisUrl ? { redisUrl: config.redisUrl } : {}),
    },
  };
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.databaseUrl === undefined
    ? openPglite(options.dataDir, options.pgliteSnapshot, options.pgliteTemplateDir)
    : openPostgres({
        databaseUrl: options.databaseUrl,
        migrationUrl: options.migrationUrl ?? options.databaseUrl,
        poolSize: options.poolSize ?? CONFIG_DEFAULTS.databasePoolSize,
        statementMs: options.timeouts?.statementMs ?? CONFIG_DEFAULTS.databaseStatementTimeoutMs,
        idleInTransactionMs:
          options.timeouts?.idleInTransactionMs ?? CONFIG_DEFAULTS.databaseIdleInTransactionTimeoutMs,
        connectMs: options.timeouts?.connectMs ?? CONFIG_DEFAULTS.databaseConnectTimeoutMs,
        preparedStatements: options.preparedStatements ?? CONFIG_DEFAULTS.databasePreparedStatements,
        readUrls: options.replicas?.urls ?? [],
        readMaxLagMs: options.replicas?.maxLagMs ?? CONFIG_DEFAULTS.databaseReadMaxLagMs,
        ...(options.replicas?.probeMs ? { readProbeMs: options.replicas.probeMs } : {}),
        ...(options.replicas?.redisUrl ? { redisUrl: options.replicas.redisUrl } : {}),
      });
}

// --- PGlite (embedded) ------------------------------------------------------------------------

function takeLock(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockPath = join(dataDir, 'agency-crm.lock');
  const claim = () => writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
  try {
    claim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(readFileSync(lockPath, 'utf8').trim());
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      throw new Error(
        `DATA_DIR ${dataDir} is in use by process ${holder}: the embedded database serves one process only. ` +
          'Stop that process, or set DATABASE_URL to use PostgreSQL for several processes.',
      );
    }
    // A stale lock left by a process that died: take it over.
    rmSync(lockPath, { force: true });
    claim();
  }
  return () => rmSync(lockPath, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A PGlite on `dataDir` (or in memory), from `loadDataDir` when given; ready. */
/** The extensions migrations create (0002): PGlite only offers the ones it was given. */
const PGLITE_EXTENSIONS = { pg_trgm, btree_gist };

async function startPglite(dataDir: string, loadDataDir: Blob | undefined): Promise<PGlite> {
  const options = { extensions: PGLITE_EXTENSIONS, ...(loadDataDir ? { loadDataDir } : {}) };
  const client = dataDir === 'memory://' ? new PGlite(options) : new PGlite(dataDir, options);
  await client.waitReady;
  return client;
}

async function openPglite(dataDir: string, snapshot?: Blob, templateDir?: string): Promise<Database> {
  const inMemory = dataDir === 'memory://';
  const releaseLock = inMemory ? () => undefined : takeLock(dataDir);
  // A new database starts from the saved copy of a migrated one, or is made and then saved as one
  // (src/db/pglite-template.ts, decision 0260).
  const template =
    snapshot === undefined && (inMemory || isEmptyDataDir(dataDir))
      ? templatePath(Object.keys(PGLITE_EXTENSIONS), templateDir)
      : undefined;
  let fromTemplate = template ? readTemplate(template) : undefined;
  let client: PGlite;
  try {
    if (snapshot !== undefined && !inMemory) throw new Error('a PGlite snapshot opens only in memory');
    try {
      client = await startPglite(dataDir, snapshot ?? fromTemplate);
    } catch (error) {
      if (fromTemplate === undefined || template === undefined) throw error;
      // An unreadable copy: drop it and make this database the long way.
      rmSync(template, { force: true });
      if (!inMemory) clearDataDir(dataDir);
      fromTemplate = undefined;
      client = await startPglite(dataDir, undefined);
    }
  } catch (error) {
    releaseLock();
    throw error;
  }
  const db = drizzlePglite(client, { schema });

  return withHelpers({
    kind: 'pglite',
    async transaction(options, fn) {
      const prelude = preludeStatements(options);
      // PGlite is one connection: its transaction() holds a mutex, so other queries wait their turn.
      const probe = options.readOnly ? currentReadProbe() : undefined;
      return db.transaction(async (tx) => {
        for (const statement of prelude) await tx.execute(sql.raw(statement));
        if (probe) probe.seen((await tx.execute(sql.raw(probe.statement))).rows as Record<string, unknown>[]);
        return fn(tx as unknown as Tx);
      });
    },
    async migrate() {
      const applied = pendingAfter(await lastApplied((text) => client.query(text)));
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
      // Made the long way, in memory: saved for the next new database, before anything but the
      // migrations ran. Never from a directory: its dump would carry the lock and the secrets key.
      if (inMemory && template !== undefined && fromTemplate === undefined && applied.length > 0) {
        saveTemplate(template, new Uint8Array(await (await client.dumpDataDir('none')).arrayBuffer()));
      }
      return applied;
    },
    async ping() {
      await client.query('SELECT 1');
    },
    poolStats: () => null,
    replicaStatus: () => [],
    warnings: () => [],
    onWarning: () => () => undefined,
    async dumpSnapshot() {
      return new Uint8Array(await (await client.dumpDataDir('none')).arrayBuffer());
    },
    async close() {
      try {
        await client.close();
      } finally {
        releaseLock();
      }
    },
  });
}

/** Runs raw SQL in a transaction and returns its rows (both drivers answer `{rows}`). */
export async function queryRows<T>(tx: Tx, query: SQL): Promise<T[]> {
  const result = (await tx.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
