import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import * as store from './webhooks.store.ts';

const BATCH = 200;

/**
 * What a subscription's secrets are sealed with (decision 0160): the current and the previous
 * secret share it, so a rotation moves the sealed value from one column to the other as it is.
 */
export function secretContext(subscriptionId: string): string {
  return `webhook-secret:${subscriptionId}`;
}

/**
 * Start step of every API and worker process (decision 0160), after the migrations: refuses to
 * start when a secret is sealed under a key this process does not hold (deliveries would all fail),
 * then seals the secrets an earlier version stored in clear and seals again under SECRETS_KEY those
 * sealed under a previous key. Returns how many subscriptions it changed.
 */
export async function sealWebhookSecrets(db: Database, secrets: SecretBox): Promise<number> {
  const held = new Set(secrets.keyIds);
  const unknown = (await db.systemTx((tx) => store.secretKeyIds(tx))).filter((row) => !held.has(row.keyId));
  if (unknown.length > 0) {
    const list = unknown.map((row) => `${row.keyId} (${row.secrets} secret(s))`).join(', ');
    throw new Error(
      `Webhook signing secrets are sealed under key(s) ${list}, which this process does not hold: ` +
        `SECRETS_KEY is ${secrets.currentKeyId}; add the old key to SECRETS_KEY_PREVIOUS (docs/secrets.md)`,
    );
  }
  const oldKeyIds = secrets.keyIds.filter((id) => id !== secrets.currentKeyId);
  let changed = 0;
  for (;;) {
    const count = await db.systemTx(async (tx) => {
      const rows = await store.findSecretsToSeal(tx, oldKeyIds, BATCH);
      for (const row of rows) {
        const context = secretContext(row.id);
        const reseal = (value: string) => {
          try {
            return secrets.seal(secrets.reveal(value, context), context);
          } catch (error) {
            throw new Error(`Webhook subscription ${row.id}: ${(error as Error).message}`, { cause: error });
          }
        };
        await store.replaceSecrets(tx, row, {
          id: row.id,
          secret: reseal(row.secret),
          previousSecret: row.previousSecret === null ? null : reseal(row.previousSecret),
        });
      }
      return rows.length;
    });
    changed += count;
    if (count < BATCH) return changed;
  }
}
