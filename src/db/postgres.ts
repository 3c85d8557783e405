// PostgreSQL through node-postgres: a pool, one round trip to open each transaction, named prepared
// statements unless turned off, and migrations that hold no session state (docs/scaling.md: safe
// behind PgBouncer in transaction mode, decision 0218).
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import pg from 'pg';
import {
  lastApplied,
  MIGRATIONS_FOLDER,
  pendingAfter,
  preludeStatements,
  withHelpers,
  type Database,
  type TransactionOptions,
  type Tx,
} from './driver.ts';
import { databaseError, isDatabaseUnavailable, isPreparedStatementLoss } from './errors.ts';
import { serviceConnection, type ServiceConnection } from './pg-statements.ts';
import { currentReadProbe } from './read-probe.ts';
import { ReplicaSet } from './replicas.ts';
import { RedisWritePositions } from './write-positions.ts';
import * as schema from './schema.ts';

/** Same number in every process: pg_advisory_xact_lock serialises concurrent migrations. */
const MIGRATION_LOCK_KEY = 7_340_112_001;
/**
 * The client's own limit on an answer, past the server's statement_timeout: a server that stopped
 * answering altogether (frozen, partitioned) enforces nothing, and the request would hang.
 */
const ANSWER_MARGIN_MS = 1_000;
/** A replica's connections give up after this at most (DATABASE_CONNECT_TIMEOUT_MS if shorter). */
const REPLICA_CONNECT_MS = 2_000;

export interface PostgresSettings {
  databaseUrl: string;
  /** Where migrations connect (DATABASE_MIGRATION_URL, else databaseUrl). */
  migrationUrl: string;
  poolSize: number;
  /** statement_timeout of every transaction; the client gives up on any answer 1 s after it. */
  statementMs: number;
  /** idle_in_transaction_session_timeout of every transaction. */
  idleInTransactionMs: number;
  /** Connecting, or waiting for a free pooled connection. */
  connectMs: number;
  /** Named prepared statements (DATABASE_PREPARED_STATEMENTS); off behind a pooler that cannot keep them. */
  preparedStatements: boolean;
  /** DATABASE_READ_URL: read replicas (none: every read on the primary). */
  readUrls: readonly string[];
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind the primary serves no reads. */
  readMaxLagMs: number;
  /** How often the replicas' positions are read (tests shorten it). */
  readProbeMs?: number;
  /** REDIS_URL: read-your-writes across processes (each write's position shared); else per process. */
  redisUrl?: string;
}

/** A pool that survives its server going away: errors surface on the next statement, as a 503. */
function openPool(settings: PostgresSettings, url: string, applicationName: string, connectMs: number): pg.Pool {
  // No server settings as startup parameters: PgBouncer refuses those it does not know
  // ("unsupported startup parameter"). The time limits are SET LOCAL in each transaction's prelude.
  const pool = new pg.Pool({
    connectionString: url,
    max: settings.poolSize,
    application_name: applicationName,
    query_timeout: settings.statementMs + ANSWER_MARGIN_MS,
    connectionTimeoutMillis: connectMs,
  });
  // An idle client that loses its server must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor may a checked-out one between two statements (pg_terminate_backend, a restart): pg-pool
  // listens only to idle clients, and an unheard 'error' event is an uncaught exception. The next
  // statement on it then fails, and the error mapping answers 503.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/**
 * Ends a tenant's transaction on the primary and says where its commit is in the WAL when it wrote
 * (null when it wrote nothing): one round trip, like a bare COMMIT.
 */
const COMMIT_AT =
  'SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS wrote; COMMIT; SELECT pg_current_wal_insert_lsn()::text AS lsn';

function commitPosition(results: unknown): string | null {
  const [wrote, , position] = results as [pg.QueryResult<{ wrote: boolean }>, unknown, pg.QueryResult<{ lsn: string }>];
  return wrote.rows[0]?.wrote ? (position.rows[0]?.lsn ?? null) : null;
}

/** A replica cancelling a read for a conflict with recovery (40001): the primary serves it instead. */
const READ_CONFLICT = '40001';

export function openPostgres(settings: PostgresSettings): Database {
  const pool = openPool(settings, settings.databaseUrl, 'agency-crm', settings.connectMs);
  // Named prepared statements until the server proves a pooler drops them (decision 0243): then every
  // connection of this process sends them unnamed, and the operator is told once.
  const statements = { prepare: settings.preparedStatements };
  const warnings: string[] = [];
  const warningListeners: ((message: string) => void)[] = [];
  const stopPreparing = () => {
    if (!statements.prepare) return;
    statements.prepare = false;
    const message =
      'The database connection lost a named prepared statement (a pooler in transaction mode, such as ' +
      'PgBouncer before 1.21, hands connections on between transactions): statements are sent unnamed from ' +
      'now on. Set DATABASE_PREPARED_STATEMENTS=false for this database to start that way.';
    warnings.push(message);
    for (const listener of warningListeners) listener(message);
  };
  const limits = { statementMs: settings.statementMs, idleInTransactionMs: settings.idleInTransactionMs };
  // One connection wrapper and Drizzle handle per pooled connection object, built once (building a
  // handle parses the schema).
  const wrapped = new WeakMap<pg.PoolClient, { connection: ServiceConnection; handle: Tx }>();
  const wrap = (client: pg.PoolClient) => {
    let found = wrapped.get(client);
    if (!found) {
      const connection = serviceConnection(client, () => statements.prepare);
      found = { connection, handle: drizzleNodePg(connection.driver, { schema }) as unknown as Tx };
      wrapped.set(client, found);
    }
    return found;
  };
  // A replica that stops answering is skipped within a probe or a failed read, so its connections
  // give up sooner than the primary's.
  const replicaConnectMs = Math.min(settings.connectMs, REPLICA_CONNECT_MS);
  const replicas =
    settings.readUrls.length === 0
      ? null
      : new ReplicaSet(
          {
            currentLsn: async () =>
              (await pool.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows[0]?.lsn ?? '0/0',
          },
          {
            urls: settings.readUrls,
            poolSize: settings.poolSize,
            maxLagMs: settings.readMaxLagMs,
            connectMs: replicaConnectMs,
            probeMs: settings.readProbeMs,
            ...(settings.redisUrl ? { shared: new RedisWritePositions(settings.redisUrl) } : {}),
          },
          (url) => openPool(settings, url, 'agency-crm read', replicaConnectMs),
        );
  void replicas?.start();

  /**
   * One transaction on `on`: BEGIN and the prelude go with `fn`'s first statement (one message when
   * that statement is prepared on the connection, pg-statements.ts), then `commit`.
   */
  async function run<T>(
    on: pg.Pool,
    options: TransactionOptions,
    fn: (tx: Tx) => Promise<T>,
    commit: string,
  ): Promise<{ result: T; committed: unknown }> {
    // Whether this attempt names its statements: transactions failing at once all retry, not only the
    // first to turn naming off.
    const named = statements.prepare;
    try {
      return await runOnce(on, options, fn, commit);
    } catch (error) {
      // The transaction failed whole (rolled back): run it again, once, without named statements.
      if (!named || !isPreparedStatementLoss(error)) throw error;
      stopPreparing();
      return runOnce(on, options, fn, commit);
    }
  }

  async function runOnce<T>(
    on: pg.Pool,
    options: TransactionOptions,
    fn: (tx: Tx) => Promise<T>,
    commit: string,
  ): Promise<{ result: T; committed: unknown }> {
    const probe = options.readOnly ? currentReadProbe() : undefined;
    const opening = ['BEGIN', ...preludeStatements(options, limits)];
    if (probe) opening.push(probe.statement);
    const client = await on.connect();
    const { connection, handle } = wrap(client);
    try {
      // BEGIN, limits, tenant and role (simple protocol: validated literals), with the read probe's
      // statement last when one is active (read-probe.ts).
      connection.defer({
        statements: opening,
        opened: (results) => probe?.seen((results[results.length - 1]?.rows ?? []) as Record<string, unknown>[]),
      });
      const result = await fn(handle);
      await connection.flush();
      const committed = await client.query(commit);
      client.release();
      return { result, committed };
    } catch (error) {
      if (isDatabaseUnavailable(error)) {
        // The connection is gone or the server does not answer: a ROLLBACK would fail or wait
        // as long again. Destroying the connection ends the transaction on the server.
        client.release(error as Error);
        throw error;
      }
      if (connection.pending) {
        // `fn` failed before any statement: nothing was sent, there is no transaction to end.
        connection.defer(null);
        client.release();
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
  }

  /** A read-only tenant read: on a replica that has the tenant's writes, else (or when it fails) the primary. */
  async function routeRead<T>(organizationId: string, read: (on: pg.Pool) => Promise<T>): Promise<T> {
    const replica = replicas === null ? null : await replicas.pick(organizationId);
    if (replica !== null) {
      try {
        const result = await read(replica.pool);
        replica.done();
        return result;
      } catch (error) {
        const conflict = databaseError(error)?.code === READ_CONFLICT;
        if (!conflict && !isDatabaseUnavailable(error)) throw error;
        // Never the client's problem: a read the replica cannot serve is served by the primary.
        if (!conflict) replica.failed(error);
      }
    }
    return read(pool);
  }

  return withHelpers({
    kind: 'postgres',
    async transaction(options, fn) {
      const organizationId = options.organizationId;
      if (replicas === null || organizationId === undefined) return (await run(pool, options, fn, 'COMMIT')).result;
      if (options.readOnly) {
        return routeRead(organizationId, async (on) => (await run(on, options, fn, 'COMMIT')).result);
      }
      const { result, committed } = await run(pool, options, fn, COMMIT_AT);
      const position = commitPosition(committed);
      if (position !== null) await replicas.noteWrite(organizationId, position);
      return result;
    },
    readStatement: <T extends Record<string, unknown>>(organizationId: string, statement: string) => {
      const options = { role: 'agency_app', organizationId, readOnly: true } as const;
      const text = ['BEGIN', ...preludeStatements(options, limits), statement, 'COMMIT'].join('; ');
      return routeRead(organizationId, async (on) => {
        const client = await on.connect();
        try {
          const results = (await client.query(text)) as unknown as pg.QueryResult[];
          client.release();
          return (results[results.length - 2]?.rows ?? []) as T[];
        } catch (error) {
          // A failure mid-message leaves the transaction block open and aborted: never pool that.
          client.release(error as Error);
          throw error;
        }
      });
    },
    migrate: () => migrate(settings),
    async ping() {
      await pool.query('SELECT 1');
    },
    poolStats: () => ({
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
      max: settings.poolSize,
    }),
    replicaStatus: () => replicas?.status() ?? [],
    warnings: () => warnings,
    onWarning(listener) {
      warningListeners.push(listener);
      return () => {
        const at = warningListeners.indexOf(listener);
        if (at >= 0) warningListeners.splice(at, 1);
      };
    },
    async dumpSnapshot(): Promise<Uint8Array> {
      throw new Error('dumpSnapshot is for the embedded database; use pg_dump for PostgreSQL');
    },
    async close() {
      await replicas?.close();
      await pool.end();
    },
  });
}

/**
 * Applies the pending migrations in **one transaction** that first takes a transaction-level
 * advisory lock: concurrent processes wait their turn, and nothing outlives the transaction. A
 * session lock (pg_advisory_lock ... pg_advisory_unlock) does not survive a pooler in transaction
 * mode: the unlock may reach another server connection and the lock stay held. What drizzle's
 * migrator does (the `drizzle.__drizzle_migrations` journal, each file's statements in order, the
 * file's hash and `when`), inside that transaction. No statement_timeout: a migration may be long.
 */
async function migrate(settings: PostgresSettings): Promise<string[]> {
  const client = new pg.Client({
    connectionString: settings.migrationUrl,
    application_name: 'agency-crm migrate',
    connectionTimeoutMillis: settings.connectMs,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await client.query('CREATE SCHEMA IF NOT EXISTS drizzle');
    await client.query(
      'CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    );
    const last = await lastApplied((text) => client.query(text));
    for (const migration of readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER })) {
      if (migration.folderMillis <= last) continue;
      for (const statement of migration.sql) if (statement.trim() !== '') await client.query(statement);
      await client.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
        migration.hash,
        migration.folderMillis,
      ]);
    }
    await client.query('COMMIT');
    return pendingAfter(last);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}
