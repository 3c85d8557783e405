// How long the delivery log keeps what it shows (WEBHOOK_LOG_RETENTION_DAYS).
import type { Database } from '../../db/database.ts';
import { purgeOlderThan } from '../../platform/jobs/purge.ts';

const PURGE_BATCH = 1_000;

/**
 * Deletes finished deliveries (SUCCEEDED or FAILED) completed more than `retentionDays` ago, with
 * their attempts (the foreign key cascades), in short batches. PENDING ones have no completion time
 * and are never touched; the event log's own purge (EVENT_LOG_RETENTION_DAYS) removes an event's
 * deliveries with it, so the shorter of the two settings applies. Returns how many deliveries went.
 */
export function purgeDeliveryLog(
  db: Database,
  retentionDays: number,
  options: { now?: Date; batchSize?: number } = {},
): Promise<number> {
  return purgeOlderThan(db, { table: 'webhook_deliveries', column: 'completed_at' }, retentionDays, {
    now: options.now,
    batchSize: options.batchSize ?? PURGE_BATCH,
  });
}
