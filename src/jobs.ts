import type { Database } from './db/database.ts';
import type { Job } from './platform/jobs/scheduler.ts';
import { purgeExpiredIdempotencyKeys } from './platform/idempotency/idempotency.store.ts';

const PURGE_BATCH = 1_000;

/** Every timed job of the worker (features add theirs here: webhook deliveries, ...). */
export function workerJobs(db: Database, intervalsMs: { purge?: number } = {}): Job[] {
  return [
    {
      name: 'idempotency.purge',
      intervalMs: intervalsMs.purge ?? 10 * 60_000,
      async run() {
        // Batches keep each transaction short; loop until a batch comes back short.
        let purged: number;
        do {
          purged = await db.systemTx((tx) => purgeExpiredIdempotencyKeys(tx, PURGE_BATCH));
        } while (purged === PURGE_BATCH);
      },
    },
  ];
}
