import type { Database } from '../../db/database.ts';
import { SecretsError, type SecretBox } from '../crypto/secret-box.ts';
import { responseContext } from './idempotency.plugin.ts';
import { findResponsesToSeal, replaceStoredResponse } from './idempotency.store.ts';

const BATCH = 500;

/**
 * Start step (decision 0160): seals the stored responses an earlier version kept in clear, and
 * seals again under SECRETS_KEY those sealed under a previous key. Returns how many it changed.
 * A body that fails authentication is left as it is (its replay answers 500, naming the cause in
 * the log): dropping it would let a retry run the request twice.
 */
export async function sealStoredResponses(db: Database, secrets: SecretBox): Promise<number> {
  const oldKeyIds = secrets.keyIds.filter((id) => id !== secrets.currentKeyId);
  let changed = 0;
  for (;;) {
    const batch = await db.systemTx(async (tx) => {
      const rows = await findResponsesToSeal(tx, oldKeyIds, BATCH);
      let sealed = 0;
      for (const row of rows) {
        const context = responseContext(row.organizationId, row.key);
        let plaintext: string;
        try {
          plaintext = secrets.reveal(row.body, context);
        } catch (error) {
          if (error instanceof SecretsError) continue;
          throw error;
        }
        await replaceStoredResponse(tx, row, secrets.seal(plaintext, context));
        sealed++;
      }
      return { read: rows.length, sealed };
    });
    changed += batch.sealed;
    if (batch.read < BATCH || batch.sealed === 0) return changed;
  }
}
