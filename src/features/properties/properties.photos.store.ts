import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { properties, type PropertyPhoto, type PropertyRow } from '../../db/schema.ts';

/** Replaces a listing's photos (its portal version follows, by trigger); null when there is no such listing. */
export async function updatePropertyPhotos(
  tx: Tx,
  organizationId: string,
  propertyId: string,
  photos: PropertyPhoto[],
): Promise<PropertyRow | null> {
  const rows = await tx
    .update(properties)
    .set({ photos, updatedAt: sql`now()` })
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, propertyId)))
    .returning();
  return rows[0] ?? null;
}

/** A listing's photos with its row locked (an upload waits for it), or null when it is gone. */
export async function lockPropertyPhotos(
  tx: Tx,
  organizationId: string,
  propertyId: string,
): Promise<PropertyPhoto[] | null> {
  const rows = await tx
    .select({ photos: properties.photos })
    .from(properties)
    .where(and(eq(properties.organizationId, organizationId), eq(properties.id, propertyId)))
    .for('update');
  return rows[0]?.photos ?? null;
}
