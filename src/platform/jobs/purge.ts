import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Tx } from '../../db/database.ts';

const DAY_MS = 86_400_000;

/** The instant before which rows kept `retentionDays` are expired. */
export function retentionCutoff(retentionDays: number, now = new Date()): Date {
  return new Date(now.getTime() - retentionDays * DAY_MS);
}

/**
 * Runs `deleteBatch` (which deletes at most `batchSize` rows and says how many) in one short system
 * transaction after another until a batch comes back short: bounded locks, however large the backlog.
 * Returns the total deleted.
 */
export async function purgeInBatches(
  db: Database,
  batchSize: number,
  deleteBatch: (tx: Tx, batchSize: number) => Promise<number>,
): Promise<number> {
  let total = 0;
  let purged: number;
  do {
    purged = await db.systemTx((tx) => deleteBatch(tx, batchSize));
    total += purged;
  } while (purged === batchSize);
  return total;
}

/**
 * Deletes up to `batchSize` rows of `table` whose `created_at` is before `before`, oldest first,
 * skipping rows another transaction holds. Returns how many went.
 */
export function deleteCreatedBefore(
  tx: Tx,
  table: 'events' | 'usage_events',
  before: Date,
  batchSize: number,
): Promise<number> {
  return deleteOlderThan(tx, { table, column: 'created_at' }, before, batchSize);
}

/**
 * Deletes up to `batchSize` rows of a table whose time column is before `before`, oldest first
 * (the column must be indexed), skipping rows another transaction holds. Returns how many went.
 */
export async function deleteOlderThan(
  tx: Tx,
  target:
    { table: 'events' | 'usage_events'; column: 'created_at' } | { table: 'request_logs'; column: 'at' },
  before: Date,
  batchSize: number,
): Promise<number> {
  const table = sql.identifier(target.table);
  const column = sql.identifier(target.column);
  const rows = await queryRows<{ purged: string | number }>(
    tx,
    sql`WITH purged AS (
          DELETE FROM ${table}
          WHERE id IN (
            SELECT id FROM ${table} WHERE ${column} < ${before.toISOString()}::timestamptz
            ORDER BY ${column} LIMIT ${batchSize}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING 1
        )
        SELECT count(*) AS purged FROM purged`,
  );
  return Number(rows[0]?.purged ?? 0);
}
