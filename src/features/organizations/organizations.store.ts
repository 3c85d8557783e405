import { and, count, desc, eq, isNull, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { organizations, type OrganizationRow } from '../../db/schema.ts';

export type NewOrganization = typeof organizations.$inferInsert;

/** An organization and, when it is live, its test twin's id (or, for a twin, nothing more). */
export interface OrganizationRecord {
  row: OrganizationRow;
  testOrganizationId: string | null;
}

const twin = sql`(SELECT t.id FROM organizations t WHERE t.live_organization_id = ${organizations.id})`;

export async function insertOrganizations(tx: Tx, rows: NewOrganization[]): Promise<void> {
  await tx.insert(organizations).values(rows);
}

export async function findOrganizationById(
  tx: Tx,
  organizationId: string,
): Promise<OrganizationRecord | null> {
  const rows = await tx
    .select({ row: organizations, testOrganizationId: sql<string | null>`${twin}` })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  return rows[0] ?? null;
}

export async function listLiveOrganizations(
  tx: Tx,
  filter: { plan?: string; isActive?: boolean },
  page: { limit: number; offset: number },
): Promise<{ items: OrganizationRecord[]; total: number }> {
  const conditions: SQL[] = [isNull(organizations.liveOrganizationId)];
  if (filter.plan !== undefined)
    conditions.push(eq(organizations.plan, filter.plan as OrganizationRow['plan']));
  if (filter.isActive !== undefined) conditions.push(eq(organizations.isActive, filter.isActive));
  const where = and(...conditions);
  const [items, totals] = await Promise.all([
    tx
      .select({ row: organizations, testOrganizationId: sql<string | null>`${twin}` })
      .from(organizations)
      .where(where)
      .orderBy(desc(organizations.createdAt), desc(organizations.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(organizations).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function updateOrganization(
  tx: Tx,
  organizationId: string,
  changes: Partial<NewOrganization>,
): Promise<void> {
  await tx
    .update(organizations)
    .set({ ...changes, updatedAt: new Date() })
    .where(eq(organizations.id, organizationId));
}

/** Deletes an organization; its twin, keys, events and records go with it (ON DELETE CASCADE). */
export async function deleteOrganization(tx: Tx, organizationId: string): Promise<void> {
  await tx.delete(organizations).where(eq(organizations.id, organizationId));
}

export async function countOrganizations(tx: Tx): Promise<number> {
  const rows = await tx.select({ total: count() }).from(organizations);
  return Number(rows[0]?.total ?? 0);
}
