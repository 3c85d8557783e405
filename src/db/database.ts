import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { sql, type SQL } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTable } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { isDatabaseUnavailable } from './errors.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
/** A Drizzle handle inside one transaction; stores take it as their first argument. */
export type Tx = PgDatabase<PgQueryResultHKT, Schema>;

export type DbRole = 'agency_app' | 'agency_system';

export interface TransactionOptions {
  role: DbRole;
  /** Sets `app.organization_id` for the transaction (RLS). Omit only to prove RLS hides everything. */
  organizationId?: string;
}

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  /** One transaction as `agency_app` with the tenant set: every tenant read and write goes here. */
  tenantTx<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** One transaction as `agency_system`, across tenants: key lookup, operator admin, worker jobs. */
  systemTx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** The primitive behind both helpers, exposed for the RLS tests. */
  transaction<T>(options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Applies pending migrations (serialised across processes by an advisory lock on PostgreSQL) and
   * returns the tags of those it applied.
   */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  /**
   * The embedded database's data directory as an uncompressed tarball (what `pgliteSnapshot` opens):
   * the tests migrate once and start every file from it. PostgreSQL has pg_dump for this and refuses.
   */
  dumpSnapshot(): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * `(SELECT count(*) FROM table WHERE where)` as a select field: a list page and its total in one
 * statement. Uncorrelated, so PostgreSQL computes it once (an InitPlan), whatever the page size.
 */
export function countOf(table: PgTable, where: SQL | undefined): SQL.Aliased<number> {
  return sql<number>`(SELECT count(*) FROM ${table} WHERE ${where ?? sql`true`})`
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
  const counted = await tx.select({ total: countOf(table, where) }).from(sql`(SELECT 1) AS one`);
  return counted[0]?.total ?? 0;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url));

interface JournalEntry {
  tag: string;
  when: number;
}

/** Drizzle applies, in order, the journal entries newer than the last applied one's `when`. */
function pendingAfter(lastApplied: number): string[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries.filter((entry) => entry.when > lastApplied).map((entry) => entry.tag);
}

const LAST_APPLIED_SQL = `SELECT coalesce(max(created_at), 0)::text AS last FROM drizzle.__drizzle_migrations`;
const HAS_JOURNAL_SQL = `SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`;

async function lastApplied(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<number> {
  const present = (await query(HAS_JOURNAL_SQL)).rows[0] as { present: boolean } | undefined;
  if (!present?.present) return 0;
  const row = (await query(LAST_APPLIED_SQL)).rows[0] as { last: string } | undefined;
  return Number(row?.last ?? 0);
}

/** Validated before it is inlined into SQL: set_config shares the BEGIN round trip, so no bind parameters. */
const ORGANIZATION_ID = /^org_[0-9A-Za-z]{22}$/;
/** Same number in every process: pg_advisory_lock serialises concurrent migrations. */
const MIGRATION_LOCK_KEY = 7_340_112_001;
/** A single statement may not run longer than this; a hung query must not hold a connection forever. */
const STATEMENT_TIMEOUT_MS = 15_000;
/** How long to wait for a new connection, or for a free one when the pool is busy. */
const CONNECT_TIMEOUT_MS = 10_000;
/**
 * The client's own limit on an answer, past the server's statement_timeout: a server that stopped
 * answering altogether (frozen, partitioned) enforces nothing, and the request would hang.
 */
const ANSWER_MARGIN_MS = 1_000;

function preludeStatements(options: TransactionOptions): string[] {
  const statements: string[] = [];
  if (options.organizationId !== undefined) {
    if (!ORGANIZATION_ID.test(options.organizationId)) {
      throw new Error(`refusing to set a malformed organization id: ${JSON.stringify(options.organizationId)}`);
    }
    statements.push(`SELECT set_config('app.organization_id', '${options.organizationId}', true)`);
  }
  statements.push(`SET LOCAL ROLE ${options.role}`);
  return statements;
}

export interface PostgresTimeouts {
  /** statement_timeout; the client gives up on any answer 1 s after it. */
  statementMs: number;
  /** Connecting, or waiting for a free pooled connection. */
  connectMs: number;
}

export interface OpenDatabaseOptions {
  databaseUrl: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** PostgreSQL only; the fault tests shorten them (docs/reliability.md). */
  timeouts?: Partial<PostgresTimeouts>;
  /**
   * In-memory PGlite only: start from this data directory (a `dumpDataDir()` tarball) instead of an
   * empty cluster. The tests start every file from one migrated snapshot.
   */
  pgliteSnapshot?: Blob;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  return options.databaseUrl === undefined
    ? openPglite(options.dataDir, options.pgliteSnapshot)
    : openPostgres(options.databaseUrl, options.poolSize ?? 10, {
        statementMs: options.timeouts?.statementMs ?? STATEMENT_TIMEOUT_MS,
        connectMs: options.timeouts?.connectMs ?? CONNECT_TIMEOUT_MS,
      });
}

function withHelpers(
  base: Omit<Database, 'tenantTx' | 'systemTx'>,
): Database {
  return {
    ...base,
    tenantTx: (organizationId, fn) => base.transaction({ role: 'agency_app', organizationId }, fn),
    systemTx: (fn) => base.transaction({ role: 'agency_system' }, fn),
  };
}

// --- PostgreSQL -------------------------------------------------------------------------------

/** Distinct statements one connection keeps prepared; past this, statements are sent unnamed. */
const PREPARED_PER_CONNECTION = 200;
const statementNames = new Map<string, string>();

/** A stable name per statement text (the same in every connection and process). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    // Bounded like the connections' own sets: texts beyond it are hashed again each time.
    if (statementNames.size < PREPARED_PER_CONNECTION * 4) statementNames.set(text, name);
  }
  return name;
}

/**
 * Makes Drizzle's statements named prepared statements on this connection: PostgreSQL parses,
 * rewrites (row-level security included) and, once its plan cache judges it safe, plans a statement
 * once per connection instead of on every call (docs/performance.md: planning was ~40 % of the
 * portal's database time). Drizzle builds the same text for the same query shape, the values travel
 * as parameters, so the number of distinct texts is the number of query shapes; it is bounded per
 * connection all the same. Plain-text calls (the transaction frame) pass through unchanged.
 */
function preparingStatements(client: pg.PoolClient): pg.PoolClient {
  const named = new Set<string>();
  // Looked up at each call (not bound once), so whatever pg.Client.prototype.query is then runs.
  const target = client as unknown as { query(config: unknown, values?: unknown): Promise<unknown> };
  const query = (config: unknown, values?: unknown) => target.query(config, values);
  const prepared = (config: unknown, values?: unknown) => {
    if (typeof config === 'object' && config !== null && 'text' in config && !('name' in config && config.name)) {
      const name = statementName(String(config.text));
      if (named.has(name) || named.size < PREPARED_PER_CONNECTION) {
        named.add(name);
        return query({ ...config, name }, values);
      }
    }
    return query(config, values);
  };
  return Object.assign(Object.create(client) as pg.PoolClient, { query: prepared });
}

function openPostgres(databaseUrl: string, poolSize: number, timeouts: PostgresTimeouts): Database {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: poolSize,
    application_name: 'agency-crm',
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + ANSWER_MARGIN_MS,
    idle_in_transaction_session_timeout: 60_000,
    connectionTimeoutMillis: timeouts.connectMs,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one between two statements (pg_terminate_backend, a restart): pg-pool
  // listens only to idle clients, and an unheard 'error' event is an uncaught exception. The next
  // statement on it then fails, and the error mapping answers 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // One Drizzle handle per pooled connection object, built once (building one parses the schema).
  const handles = new WeakMap<pg.PoolClient, Tx>();
  const handleFor = (client: pg.PoolClient): Tx => {
    let handle = handles.get(client);
    if (!handle) {
      handle = drizzleNodePg(preparingStatements(client), { schema }) as unknown as Tx;
      handles.set(client, handle);
    }
    return handle;
  };

  return withHelpers({
    kind: 'postgres',
    async transaction(options, fn) {
      const prelude = ['BEGIN', ...preludeStatements(options)].join('; ');
      const client = await pool.connect();
      try {
        // BEGIN, tenant and role in one round trip (simple protocol: no parameters, validated literal).
        await client.query(prelude);
        const result = await fn(handleFor(client));
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (error) {
        if (isDatabaseUnavailable(error)) {
          // The connection is gone or the server does not answer: a ROLLBACK would fail or wait
          // as long again. Destroying the connection ends the transaction on the server.
          client.release(error as Error);
          throw error;
        }
        try {
          await client.query('ROLLBACK');
          client.release();
        } catch (rollbackError) {
          // Never hand an aborted connection back to the pool.
          client.release(rollbackError as Error);
        }
        throw error;
      }
    },
    async migrate() {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        let applied: string[];
        try {
          applied = pendingAfter(await lastApplied((text) => client.query(text)));
          await migrateNodePg(drizzleNodePg(client), { migrationsFolder: MIGRATIONS_FOLDER });
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
        }
        client.release();
        return applied;
      } catch (error) {
        client.release(error as Error);
        throw error;
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async dumpSnapshot(): Promise<Uint8Array> {
      throw new Error('dumpSnapshot is for the embedded database; use pg_dump for PostgreSQL');
    },
    async close() {
      await pool.end();
    },
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

async function openPglite(dataDir: string, snapshot?: Blob): Promise<Database> {
  const inMemory = dataDir === 'memory://';
  const releaseLock = inMemory ? () => undefined : takeLock(dataDir);
  let client: PGlite;
  try {
    // The extensions migrations create (0002): PGlite only offers the ones it was given here.
    const options = { extensions: { pg_trgm, btree_gist } };
    if (snapshot !== undefined && !inMemory) throw new Error('a PGlite snapshot opens only in memory');
    client = inMemory ? new PGlite({ ...options, loadDataDir: snapshot }) : new PGlite(dataDir, options);
    await client.waitReady;
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
      return db.transaction(async (tx) => {
        for (const statement of prelude) await tx.execute(sql.raw(statement));
        return fn(tx as unknown as Tx);
      });
    },
    async migrate() {
      const applied = pendingAfter(await lastApplied((text) => client.query(text)));
      await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
      return applied;
    },
    async ping() {
      await client.query('SELECT 1');
    },
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
