// The addresses nothing more is sent to (a permanent bounce), per organization, lower case.
import { and, eq, inArray } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { emailSuppressions } from '../../db/schema.ts';

/** Whether the address bounced for good in this organization: the worker sends nothing to it. */
export async function isSuppressed(tx: Tx, organizationId: string, address: string): Promise<boolean> {
  const rows = await tx
    .select({ address: emailSuppressions.address })
    .from(emailSuppressions)
    .where(
      and(
        eq(emailSuppressions.organizationId, organizationId),
        eq(emailSuppressions.address, address.toLowerCase()),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

/** Suppresses an address (the first reason stays); true when it was not suppressed yet. */
export async function insertSuppression(
  tx: Tx,
  row: { organizationId: string; address: string; reason: string; emailId: string | null },
): Promise<boolean> {
  const inserted = await tx
    .insert(emailSuppressions)
    .values({ ...row, address: row.address.toLowerCase() })
    .onConflictDoNothing()
    .returning({ address: emailSuppressions.address });
  return inserted.length > 0;
}

/** Removes the suppressions of these addresses (any case); returns how many went. */
export async function deleteSuppressions(
  tx: Tx,
  organizationId: string,
  addresses: readonly string[],
): Promise<number> {
  const lower = [...new Set(addresses.map((address) => address.toLowerCase()))];
  if (lower.length === 0) return 0;
  const deleted = await tx
    .delete(emailSuppressions)
    .where(
      and(eq(emailSuppressions.organizationId, organizationId), inArray(emailSuppressions.address, lower)),
    )
    .returning({ address: emailSuppressions.address });
  return deleted.length;
}
