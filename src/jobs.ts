import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { FEATURES } from './features.ts';
import type { SecretBox } from './platform/crypto/secret-box.ts';
import { openSecretBox } from './platform/crypto/secrets-key.ts';
import { installFeatures, type FeatureManifest, type JobContext } from './platform/features/manifest.ts';
import { purgeExpiredIdempotencyKeys } from './platform/idempotency/idempotency.store.ts';
import type { Job } from './platform/jobs/scheduler.ts';

const PURGE_BATCH = 1_000;

export interface WorkerJobSettings extends Partial<Config> {
  /** Where jobs report errors (the app's or the worker's logger). */
  log?: JobContext['log'];
  /** The process's secrets box (server.ts and worker.ts open it once); else opened from the settings. */
  secrets?: SecretBox;
  /** The features whose jobs run: src/features.ts's list (a test adds one of its own). */
  features?: readonly FeatureManifest[];
}

/** The platform's own jobs: machinery every feature shares. */
function platformJobs(db: Database): Job[] {
  return [
    {
      name: 'idempotency.purge',
      intervalMs: 10 * 60_000,
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

/**
 * Every timed job of the worker: the platform's, then each feature's (its manifest's `jobs`), so a
 * job a feature declares is always scheduled. Pass the Config; tests pass none and get the defaults.
 */
export function workerJobs(db: Database, settings: WorkerJobSettings = {}): Job[] {
  const { log, secrets, features = FEATURES, ...config } = settings;
  const context: JobContext = { db, config, log, secrets: secrets ?? openSecretBox(config) };
  installFeatures(features);
  return [...platformJobs(db), ...features.flatMap((feature) => feature.jobs?.(context) ?? [])];
}
