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

/** A table purged by age, with the indexed time column its age is read from. */
export type PurgeTarget =
  | { table: 'events' | 'usage_events' | 'emails'; column: 'created_at' }
  | { table: 'request_logs'; column: 'at' }
  | { table: 'webhook_deliveries'; column: 'completed_at' };

/**
 * A retention job's whole work: deletes the rows of `target` older than `retentionDays` in batches
 * of `batchSize` (purgeInBatches, deleteOlderThan); returns how many went.
 */
export function purgeOlderThan(
  db: Database,
  target: PurgeTarget,
  retentionDays: number,
  options: { now?: Date; batchSize: number },
): Promise<number> {
  const before = retentionCutoff(retentionDays, options.now);
  return purgeInBatches(db, options.batchSize, (tx, limit) => deleteOlderThan(tx, target, before, limit));
}

/**
 * Deletes up to `batchSize` rows of a table whose time column is before `before`, oldest first
 * (the column must be indexed), skipping rows another transaction holds. Returns how many went.
 */
export async function deleteOlderThan(
  tx: Tx,
  target: PurgeTarget,
  before: Date,
  batchSize: number,
): Promise<number> {
  const table = sql.identifier(target.table);
  const column = sql.identifier(target.column);
  const rows = await queryRows<{ purged: string | number }>(
    tx,
    sql`WITH purged AS (
          DELETE FROM ${table}
          -- By the whole key (organization_id, id): id alone is not indexed (decision 0222).
          WHERE (organization_id, id) IN (
            SELECT organization_id, id FROM ${table} WHERE ${column} < ${before.toISOString()}::timestamptz
            ORDER BY ${column} LIMIT ${batchSize}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING 1
        )
        SELECT count(*) AS purged FROM purged`,
  );
  return Number(rows[0]?.purged ?? 0);
}
