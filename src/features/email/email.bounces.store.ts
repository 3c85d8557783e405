// The bounce hook's SQL: which organization an email id belongs to (before the tenant is known), and
// an email marked BOUNCED.
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { emails, type EmailRow } from '../../db/schema.ts';

/**
 * The emails with this id in any organization (a bounce names the id only; ids are random, so one at
 * most in practice): in a system transaction. No index has the id first, so on a large log this reads
 * more than it should (reported with decision 0269: an index on `emails (id)` would make it a probe).
 */
export async function findEmailAnywhere(
  tx: Tx,
  id: string,
): Promise<{ organizationId: string; toAddress: string | null }[]> {
  return tx
    .select({ organizationId: emails.organizationId, toAddress: emails.toAddress })
    .from(emails)
    .where(eq(emails.id, id))
    .limit(2);
}

/** The email BOUNCED with the bounce's reason; returns the row as it is now. */
export async function markBounced(
  tx: Tx,
  organizationId: string,
  id: string,
  reason: string | null,
): Promise<EmailRow | null> {
  const rows = await tx
    .update(emails)
    .set({ status: 'BOUNCED', reason, updatedAt: sql`now()` })
    .where(and(eq(emails.organizationId, organizationId), eq(emails.id, id)))
    .returning();
  return rows[0] ?? null;
}
