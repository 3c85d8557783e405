import type { Database } from './db/database.ts';
import { FEATURES } from './features.ts';
import type { SecretBox } from './platform/crypto/secret-box.ts';
import { installFeatures, type FeatureManifest, type StartContext } from './platform/features/manifest.ts';
import { sealStoredResponses } from './platform/idempotency/idempotency.seal.ts';

/**
 * What every API and worker process does once, after the migrations and before it serves or
 * delivers: the platform's own step, then each feature's (its manifest's `atStart`). Today that is
 * sealing secrets at rest (decision 0160): what an earlier version stored in clear, and what a
 * previous SECRETS_KEY sealed, is sealed under the current key, so after every process restarted
 * with a new key nothing needs the old one.
 */
export async function runStartSteps(
  db: Database,
  secrets: SecretBox,
  log: StartContext['log'],
  features: readonly FeatureManifest[] = FEATURES,
): Promise<void> {
  installFeatures(features);
  const sealed = await sealStoredResponses(db, secrets);
  if (sealed > 0) log.info({ sealed }, 'idempotent responses sealed under the current SECRETS_KEY');
  for (const feature of features) await feature.atStart?.({ db, secrets, log });
}
