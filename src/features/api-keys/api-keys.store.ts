import { and, count, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { apiKeys, type ApiKeyRow } from '../../db/schema.ts';

export type NewApiKey = typeof apiKeys.$inferInsert;

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
