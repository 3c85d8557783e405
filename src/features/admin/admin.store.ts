import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { apiKeys, organizations, type ApiKeyRow, type OrganizationRow } from '../../db/schema.ts';

export type NewOrganization = typeof organizations.$inferInsert;
export type NewApiKey = typeof apiKeys.$inferInsert;

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

export async function insertApiKey(tx: Tx, organizationId: string, row: Omit<NewApiKey, 'organizationId'>) {
  const inserted = await tx
    .insert(apiKeys)
    .values({ ...row, organizationId })
    .returning();
  return inserted[0] as ApiKeyRow;
}

export async function findApiKeyById(tx: Tx, keyId: string): Promise<ApiKeyRow | null> {
  const rows = await tx.select().from(apiKeys).where(eq(apiKeys.id, keyId)).limit(1);
  return rows[0] ?? null;
}

export async function listApiKeys(
  tx: Tx,
  organizationIds: string[],
  filter: { status?: string; type?: string; mode?: string },
  page: { limit: number; offset: number },
): Promise<{ items: ApiKeyRow[]; total: number }> {
  const conditions: (SQL | undefined)[] = [inArray(apiKeys.organizationId, organizationIds)];
  if (filter.status !== undefined) conditions.push(eq(apiKeys.status, filter.status as ApiKeyRow['status']));
  if (filter.type !== undefined) conditions.push(eq(apiKeys.type, filter.type as ApiKeyRow['type']));
  if (filter.mode !== undefined) conditions.push(eq(apiKeys.mode, filter.mode as ApiKeyRow['mode']));
  const where = and(...conditions);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(apiKeys)
      .where(where)
      .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(apiKeys).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function updateApiKey(
  tx: Tx,
  organizationId: string,
  keyId: string,
  changes: Partial<NewApiKey>,
): Promise<ApiKeyRow | null> {
  const rows = await tx
    .update(apiKeys)
    .set({ ...changes, updatedAt: new Date() })
    .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.id, keyId)))
    .returning();
  return rows[0] ?? null;
}

/** The tenant's own organization row (RLS shows no other), with the live organization's defaults. */
export async function findTenantDefaults(
  tx: Tx,
  organizationId: string,
): Promise<{ id: string; defaultCountry: string; defaultCurrency: string; livemode: boolean } | null> {
  const rows = await tx
    .select({
      id: organizations.id,
      defaultCountry: organizations.defaultCountry,
      defaultCurrency: organizations.defaultCurrency,
      liveOrganizationId: organizations.liveOrganizationId,
    })
    .from(organizations)
    .where(eq(organizations.id, organizationId))
    .limit(1);
  const row = rows[0];
  return row ? { ...row, livemode: row.liveOrganizationId === null } : null;
}
