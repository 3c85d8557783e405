import type { Database } from './db/database.ts';
import { failInterruptedSends } from './features/conversations/conversations.service.ts';
import { purgeUsageDetail } from './features/usage/usage.service.ts';
import { webhookDeliveryJob, type DeliveryWorkerSettings } from './features/webhooks/webhooks.worker.ts';
import type { Job } from './platform/jobs/scheduler.ts';
import { purgeExpiredIdempotencyKeys } from './platform/idempotency/idempotency.store.ts';

const PURGE_BATCH = 1_000;
/** USAGE_DETAIL_RETENTION_DAYS's default, for callers that pass no config (tests). */
const DEFAULT_USAGE_DETAIL_RETENTION_DAYS = 90;
/** WEBHOOK_RETRY_DELAYS_MS's default (DESIGN.md), likewise. */
const DEFAULT_RETRY_DELAYS_MS = [0, 5_000, 30_000, 120_000, 600_000];

export interface WorkerJobSettings extends Partial<DeliveryWorkerSettings> {
  /** Where the delivery worker reports errors (the app's or the worker's logger). */
  log?: { error(obj: unknown, msg: string): void };
  /** Days raw usage events are kept (Config.usageDetailRetentionDays): pass the Config itself. */
  usageDetailRetentionDays?: number;
  intervalsMs?: { purge?: number; usagePurge?: number; messagingSweep?: number };
}

/** Every timed job of the worker (features add theirs here: webhook deliveries, ...). */
export function workerJobs(db: Database, settings: WorkerJobSettings = {}): Job[] {
  const intervalsMs = settings.intervalsMs ?? {};
  return [
    // Webhook deliveries: claims due rows of webhook_deliveries and POSTs them (features/webhooks).
    webhookDeliveryJob(
      db,
      {
        ...settings,
        webhookRetryDelaysMs: settings.webhookRetryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
        webhookTimeoutMs: settings.webhookTimeoutMs ?? 10_000,
        webhookAllowPrivateUrls: settings.webhookAllowPrivateUrls ?? false,
      },
      settings.log,
    ),
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
    {
      // Raw usage detail past its retention; the daily aggregates are kept for good.
      name: 'usage.purge',
      intervalMs: intervalsMs.usagePurge ?? 60 * 60_000,
      async run() {
        await purgeUsageDetail(db, settings.usageDetailRetentionDays ?? DEFAULT_USAGE_DETAIL_RETENTION_DAYS);
      },
    },
    {
      // Sends a crash interrupted between their two transactions: FAILED, never QUEUED for ever.
      name: 'messages.fail_interrupted',
      intervalMs: intervalsMs.messagingSweep ?? 60_000,
      async run() {
        await failInterruptedSends(db);
      },
    },
  ];
}
