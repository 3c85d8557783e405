import type { Tx } from '../../db/database.ts';
import { SecretsError, type SecretBox } from '../crypto/secret-box.ts';
import { responseContext } from './idempotency.plugin.ts';
import { findStoredResponses, replaceStoredResponse } from './idempotency.store.ts';

const BATCH = 500;

/**
 * Rewrites the organization's stored responses (an erasure, issue 21): each one is opened, given to
 * `rewrite`, and sealed again when it changed; a replay then answers the rewritten body. Runs in the
 * caller's transaction, over the records of the last 24 hours in batches. Returns how many changed.
 */
export async function rewriteStoredResponses(
  tx: Tx,
  secrets: SecretBox,
  organizationId: string,
  rewrite: (body: string) => string,
): Promise<number> {
  let changed = 0;
  let after = '';
  for (;;) {
    const rows = await findStoredResponses(tx, organizationId, after, BATCH);
    for (const row of rows) {
      const context = responseContext(row.organizationId, row.key);
      let body: string;
      try {
        body = secrets.reveal(row.body, context);
      } catch (error) {
        // Sealed under a key this process does not hold: unreadable here, and to anyone without it.
        if (error instanceof SecretsError) continue;
        throw error;
      }
      const rewritten = rewrite(body);
      if (rewritten === body) continue;
      await replaceStoredResponse(tx, row, secrets.seal(rewritten, context));
      changed++;
    }
    if (rows.length < BATCH) return changed;
    after = (rows.at(-1) as { key: string }).key;
  }
}
