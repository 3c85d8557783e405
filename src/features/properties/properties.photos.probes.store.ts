// The photo_probes queue's SQL (migration 0035, decision 0266): claiming due listings across
// organizations with a lease, and settling each one (deleted when done, delayed after a failure).
import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { photoProbes } from '../../db/schema.ts';

/** A listing whose photos this worker probes now, and how many runs failed before. */
export interface ClaimedProbe {
  organizationId: string;
  propertyId: string;
  attempts: number;
}

/**
 * Takes up to `limit` due rows (due_at passed, no live lease), across organizations, for `leaseMs`:
 * FOR UPDATE SKIP LOCKED and the lease, so two workers never probe the same listing at once and a
 * crashed worker's rows come back when the lease ends.
 */
export async function claimDueProbes(
  tx: Tx,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedProbe[]> {
  const rows = await queryRows<{ organization_id: string; property_id: string; attempts: number }>(
    tx,
    sql`WITH picked AS (
          SELECT organization_id, property_id FROM photo_probes
          WHERE due_at <= ${now} AND (locked_until IS NULL OR locked_until <= ${now})
          ORDER BY due_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE photo_probes q
        SET locked_until = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond'
        FROM picked p
        WHERE q.organization_id = p.organization_id AND q.property_id = p.property_id
        RETURNING q.organization_id, q.property_id, q.attempts`,
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    propertyId: row.property_id,
    attempts: Number(row.attempts),
  }));
}

/** The listing's row is done: nothing of it is left to probe. */
export async function deleteProbe(tx: Tx, organizationId: string, propertyId: string): Promise<void> {
  await tx
    .delete(photoProbes)
    .where(and(eq(photoProbes.organizationId, organizationId), eq(photoProbes.propertyId, propertyId)));
}

/** The listing has photos left to probe: again at `dueAt`, with its failed runs and last error. */
export async function delayProbe(
  tx: Tx,
  organizationId: string,
  propertyId: string,
  next: { dueAt: Date; attempts: number; lastError: string | null },
): Promise<void> {
  await tx
    .update(photoProbes)
    .set({ dueAt: next.dueAt, attempts: next.attempts, lastError: next.lastError, lockedUntil: null })
    .where(and(eq(photoProbes.organizationId, organizationId), eq(photoProbes.propertyId, propertyId)));
}
