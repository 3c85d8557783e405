// The history of a property's price and status (property_changes, migration 0021).
import { and, asc, eq } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { propertyChanges, type PropertyChangeRow } from '../../db/schema.ts';

export type NewPropertyChange = typeof propertyChanges.$inferInsert;

export async function insertPropertyChanges(tx: Tx, rows: NewPropertyChange[]): Promise<void> {
  if (rows.length > 0) await tx.insert(propertyChanges).values(rows);
}

/** One page of a property's changes, oldest first, and their (bounded) count. */
export async function listPropertyChanges(
  tx: Tx,
  organizationId: string,
  propertyId: string,
  page: { limit: number; offset: number },
): Promise<{ items: PropertyChangeRow[]; total: number }> {
  const where = and(
    eq(propertyChanges.organizationId, organizationId),
    eq(propertyChanges.propertyId, propertyId),
  );
  const items = await tx
    .select()
    .from(propertyChanges)
    .where(where)
    .orderBy(asc(propertyChanges.createdAt), asc(propertyChanges.id))
    .limit(page.limit)
    .offset(page.offset);
  return { items, total: await countMatches(tx, propertyChanges, where) };
}
