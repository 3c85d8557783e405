import { and, asc, count, desc, eq, inArray, ne, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import {
  deals,
  pipelines,
  pipelineStages,
  type PipelineRow,
  type PipelineStageRow,
} from '../../db/schema.ts';

export type NewPipeline = typeof pipelines.$inferInsert;
export type NewPipelineStage = typeof pipelineStages.$inferInsert;

/**
 * Serialises the organization's pipeline writes until the transaction ends, so two writers never
 * both make "their" pipeline the default (there is no row to lock before the first one exists).
 */
export async function lockPipelines(tx: Tx, organizationId: string): Promise<void> {
  await queryRows(
    tx,
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${`pipelines:${organizationId}`}, 0))`,
  );
}

export async function findPipelineById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PipelineRow | null> {
  const rows = await tx
    .select()
    .from(pipelines)
    .where(and(eq(pipelines.organizationId, organizationId), eq(pipelines.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** The default pipeline (the oldest flagged one, should a race ever leave two). */
export async function findDefaultPipeline(tx: Tx, organizationId: string): Promise<PipelineRow | null> {
  const rows = await tx
    .select()
    .from(pipelines)
    .where(and(eq(pipelines.organizationId, organizationId), eq(pipelines.isDefault, true)))
    .orderBy(asc(pipelines.createdAt), asc(pipelines.id))
    .limit(1);
  return rows[0] ?? null;
}

export async function countPipelines(tx: Tx, organizationId: string): Promise<number> {
  const rows = await tx
    .select({ n: count() })
    .from(pipelines)
    .where(eq(pipelines.organizationId, organizationId));
  return Number(rows[0]?.n ?? 0);
}

/** One page of pipelines: the default first, then oldest first. */
export async function listPipelines(
  tx: Tx,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ items: PipelineRow[]; total: number }> {
  const where = eq(pipelines.organizationId, organizationId);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(pipelines)
      .where(where)
      .orderBy(desc(pipelines.isDefault), asc(pipelines.createdAt), asc(pipelines.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ n: count() }).from(pipelines).where(where),
  ]);
  return { items, total: Number(totals[0]?.n ?? 0) };
}

/** The stages of these pipelines, each pipeline's in position order. */
export async function listStages(
  tx: Tx,
  organizationId: string,
  pipelineIds: string[],
): Promise<PipelineStageRow[]> {
  if (pipelineIds.length === 0) return [];
  return tx
    .select()
    .from(pipelineStages)
    .where(
      and(eq(pipelineStages.organizationId, organizationId), inArray(pipelineStages.pipelineId, pipelineIds)),
    )
    .orderBy(asc(pipelineStages.pipelineId), asc(pipelineStages.position), asc(pipelineStages.id));
}

export async function findStageById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PipelineStageRow | null> {
  const rows = await tx
    .select()
    .from(pipelineStages)
    .where(and(eq(pipelineStages.organizationId, organizationId), eq(pipelineStages.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

export async function insertPipeline(tx: Tx, row: NewPipeline): Promise<PipelineRow> {
  const rows = await tx.insert(pipelines).values(row).returning();
  return rows[0] as PipelineRow;
}

export async function updatePipeline(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<Pick<NewPipeline, 'name' | 'isDefault'>>,
): Promise<PipelineRow | null> {
  const rows = await tx
    .update(pipelines)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(pipelines.organizationId, organizationId), eq(pipelines.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** Takes the default flag from every pipeline of the organization but `keepId`. */
export async function clearDefault(tx: Tx, organizationId: string, keepId: string): Promise<void> {
  await tx
    .update(pipelines)
    .set({ isDefault: false, updatedAt: sql`now()` })
    .where(
      and(
        eq(pipelines.organizationId, organizationId),
        eq(pipelines.isDefault, true),
        ne(pipelines.id, keepId),
      ),
    );
}

/** Makes the oldest pipeline the default (after the default one was deleted); null when none is left. */
export async function promoteOldestPipeline(tx: Tx, organizationId: string): Promise<string | null> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE pipelines SET is_default = true, updated_at = now()
        WHERE id = (SELECT id FROM pipelines WHERE organization_id = ${organizationId}
                    ORDER BY created_at, id LIMIT 1)
          AND organization_id = ${organizationId}
        RETURNING id`,
  );
  return rows[0]?.id ?? null;
}

export async function deletePipeline(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<PipelineRow | null> {
  const rows = await tx
    .delete(pipelines)
    .where(and(eq(pipelines.organizationId, organizationId), eq(pipelines.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function insertStages(tx: Tx, rows: NewPipelineStage[]): Promise<void> {
  if (rows.length > 0) await tx.insert(pipelineStages).values(rows);
}

export async function updateStage(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Pick<NewPipelineStage, 'name' | 'kind' | 'probability' | 'position'>,
): Promise<void> {
  await tx
    .update(pipelineStages)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(pipelineStages.organizationId, organizationId), eq(pipelineStages.id, id)));
}

export async function deleteStages(tx: Tx, organizationId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .delete(pipelineStages)
    .where(and(eq(pipelineStages.organizationId, organizationId), inArray(pipelineStages.id, ids)));
}

/** Deals per stage, for the stages that hold any. */
export async function countDealsByStage(
  tx: Tx,
  organizationId: string,
  stageIds: string[],
): Promise<Map<string, number>> {
  if (stageIds.length === 0) return new Map();
  const rows = await tx
    .select({ stageId: deals.stageId, n: count() })
    .from(deals)
    .where(and(eq(deals.organizationId, organizationId), inArray(deals.stageId, stageIds)))
    .groupBy(deals.stageId);
  return new Map(rows.map((row) => [row.stageId, Number(row.n)]));
}

export async function countDealsInPipeline(
  tx: Tx,
  organizationId: string,
  pipelineId: string,
): Promise<number> {
  const rows = await tx
    .select({ n: count() })
    .from(deals)
    .where(and(eq(deals.organizationId, organizationId), eq(deals.pipelineId, pipelineId)));
  return Number(rows[0]?.n ?? 0);
}
