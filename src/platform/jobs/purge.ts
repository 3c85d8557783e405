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
export async function deleteCreatedBefore(
  tx: Tx,
  table: 'events' | 'usage_events',
  before: Date,
  batchSize: number,
): Promise<number> {
  const rows = await queryRows<{ purged: string | number }>(
    tx,
    sql`WITH purged AS (
          DELETE FROM ${sql.identifier(table)}
          WHERE id IN (
            SELECT id FROM ${sql.identifier(table)} WHERE created_at < ${before.toISOString()}::timestamptz
            ORDER BY created_at LIMIT ${batchSize}
            FOR UPDATE SKIP LOCKED
          )
          RETURNING 1
        )
        SELECT count(*) AS purged FROM purged`,
  );
  return Number(rows[0]?.purged ?? 0);
}
