// What both database drivers share (database.ts for PGlite, postgres.ts for PostgreSQL): the handle
// types, the transaction prelude (tenant, role, time limits) and the migration bookkeeping.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { ReplicaStatus } from './replicas.ts';
import type { TransactionOptions, Tx } from './transaction.ts';
import { unitAware } from './unit-of-work.ts';

export type { DbRole, Schema, TransactionOptions, Tx } from './transaction.ts';

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  /** One transaction as `agency_app` with the tenant set: every tenant read and write goes here. */
  tenantTx<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** One transaction as `agency_system`, across tenants: key lookup, operator admin, worker jobs. */
  systemTx<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * A read-only tenant transaction: on a read replica when one is configured, within the lag limit
   * and past the organization's last write (read-your-writes); on the primary otherwise. Portal and
   * CRM reads, the event log and MCP tools read here.
   */
  readTx<T>(organizationId: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * One read-only statement with the tenant set, routed as readTx, in one round trip on PostgreSQL
   * (BEGIN, the prelude, the statement and COMMIT sent together). Simple protocol: `statement` takes
   * no parameters (RLS scopes it to the tenant). The portal cache's version check.
   */
  readStatement<T extends Record<string, unknown>>(organizationId: string, statement: string): Promise<T[]>;
  /** The primitive behind both helpers, exposed for the RLS tests. */
  transaction<T>(options: TransactionOptions, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * Applies pending migrations (serialised across processes by an advisory lock on PostgreSQL) and
   * returns the tags of those it applied.
   */
  migrate(): Promise<string[]>;
  ping(): Promise<void>;
  /** The connection pool as it stands (PostgreSQL); null for the embedded database's one connection. */
  poolStats(): PoolStats | null;
  /** Each read replica's state and lag (DATABASE_READ_URL); empty without replicas. */
  replicaStatus(): ReplicaStatus[];
  /**
   * What the connection layer had to work around since start, in words an operator can act on (a
   * pooler that drops prepared statements: decision 0243). `/readyz` shows them.
   */
  warnings(): readonly string[];
  /** Calls `listener` once for each new warning (the app logs it); returns how to stop. */
  onWarning(listener: (message: string) => void): () => void;
  /**
   * The embedded database's data directory as an uncompressed tarball (what `pgliteSnapshot` opens):
   * the tests migrate once and start every file from it. PostgreSQL has pg_dump for this and refuses.
   */
  dumpSnapshot(): Promise<Uint8Array>;
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = fileURLToPath(new URL('../../db/migrations', import.meta.url));

interface JournalEntry {
  tag: string;
  when: number;
}

/** Drizzle applies, in order, the journal entries newer than the last applied one's `when`. */
export function pendingAfter(lastApplied: number): string[] {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return journal.entries.filter((entry) => entry.when > lastApplied).map((entry) => entry.tag);
}

const LAST_APPLIED_SQL = `SELECT coalesce(max(created_at), 0)::text AS last FROM drizzle.__drizzle_migrations`;
const HAS_JOURNAL_SQL = `SELECT to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS present`;

export async function lastApplied(query: (text: string) => Promise<{ rows: unknown[] }>): Promise<number> {
  const present = (await query(HAS_JOURNAL_SQL)).rows[0] as { present: boolean } | undefined;
  if (!present?.present) return 0;
  const row = (await query(LAST_APPLIED_SQL)).rows[0] as { last: string } | undefined;
  return Number(row?.last ?? 0);
}

/** Validated before it is inlined into SQL: set_config shares the BEGIN round trip, so no bind parameters. */
const ORGANIZATION_ID = /^org_[0-9A-Za-z]{22}$/;

/** Server-side limits set per transaction (PostgreSQL; PGlite has no other sessions to protect). */
export interface TransactionLimits {
  statementMs: number;
  idleInTransactionMs: number;
}

/**
 * The statements that open a transaction after BEGIN: the time limits (SET LOCAL, so a pooler in
 * transaction mode, which refuses them as startup parameters, still applies them: decision 0218),
 * the tenant and the role. Simple protocol, no parameters: every value is validated here.
 */
export function preludeStatements(options: TransactionOptions, limits?: TransactionLimits): string[] {
  const statements: string[] = options.readOnly ? ['SET TRANSACTION READ ONLY'] : [];
  if (limits !== undefined) {
    for (const value of [limits.statementMs, limits.idleInTransactionMs]) {
      if (!Number.isSafeInteger(value) || value < 0) throw new Error(`refusing a malformed time limit: ${value}`);
    }
    statements.push(
      `SET LOCAL statement_timeout = ${limits.statementMs}`,
      `SET LOCAL idle_in_transaction_session_timeout = ${limits.idleInTransactionMs}`,
    );
  }
  if (options.organizationId !== undefined) {
    if (!ORGANIZATION_ID.test(options.organizationId)) {
      throw new Error(`refusing to set a malformed organization id: ${JSON.stringify(options.organizationId)}`);
    }
    statements.push(`SELECT set_config('app.organization_id', '${options.organizationId}', true)`);
  }
  statements.push(`SET LOCAL ROLE ${options.role}`);
  return statements;
}

export interface PoolStats {
  /** Connections open (busy or idle). */
  open: number;
  idle: number;
  /** Transactions waiting for a connection: the pool is too small, or the database too slow. */
  waiting: number;
  /** DATABASE_POOL_SIZE. */
  max: number;
}

/** The tenant and system transactions, over a driver's `transaction`. */
export function withHelpers(
  base: Omit<Database, 'tenantTx' | 'systemTx' | 'readTx' | 'readStatement'> &
    Partial<Pick<Database, 'readStatement'>>,
): Database {
  // A request's unit of work (db/unit-of-work.ts) sees every transaction opened while it is current.
  const transaction = unitAware({
    transact: base.transaction.bind(base),
    // Inside an open transaction: no READ ONLY (too late) and no time limits (already set).
    prelude: (options) => preludeStatements({ ...options, readOnly: false }),
  });
  return {
    ...base,
    transaction,
    readTx: (organizationId, fn) => transaction({ role: 'agency_app', organizationId, readOnly: true }, fn),
    tenantTx: (organizationId, fn) => transaction({ role: 'agency_app', organizationId }, fn),
    systemTx: (fn) => transaction({ role: 'agency_system' }, fn),
    readStatement:
      base.readStatement ??
      (<T,>(organizationId: string, statement: string) =>
        transaction({ role: 'agency_app', organizationId, readOnly: true }, async (tx) => {
          const result = (await tx.execute(sql.raw(statement))) as unknown as { rows: T[] };
          return result.rows;
        })),
  };
}

