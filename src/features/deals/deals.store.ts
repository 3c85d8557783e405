import { and, asc, desc, eq, gte, inArray, isNotNull, lt, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { countMatches, type Tx } from '../../db/database.ts';
import { keysetConditions, keysetOrder, keysetPosition, type Keyed, type Keyset } from '../../db/keyset.ts';
import { dealStageChanges, deals, pipelineStages, type DealRow } from '../../db/schema.ts';

export type NewDeal = typeof deals.$inferInsert;
export type NewDealStageChange = typeof dealStageChanges.$inferInsert;

/** A deal with the name of its stage (the Deal resource shows both). */
export interface DealWithStage {
  deal: DealRow;
  stageName: string;
}

function withStage(tx: Tx) {
  return tx
    .select({ deal: deals, stageName: pipelineStages.name })
    .from(deals)
    .innerJoin(
      pipelineStages,
      and(eq(pipelineStages.organizationId, deals.organizationId), eq(pipelineStages.id, deals.stageId)),
    );
}

/** The deal with its stage name; `lock` holds the row until the transaction ends (moves run in turn). */
export async function findDealById(
  tx: Tx,
  organizationId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<DealWithStage | null> {
  const where = and(eq(deals.organizationId, organizationId), eq(deals.id, id));
  if (options.lock) {
    const locked = await tx.select({ id: deals.id }).from(deals).where(where).limit(1).for('update');
    if (locked.length === 0) return null;
  }
  const rows = await withStage(tx).where(where).limit(1);
  return rows[0] ?? null;
}

/** Inserts a deal; `closed` stamps closedAt with the transaction time (a deal created WON or LOST). */
export async function insertDeal(tx: Tx, row: NewDeal, closed: boolean): Promise<DealRow> {
  const rows = await tx
    .insert(deals)
    .values({ ...row, closedAt: closed ? sql`now()` : null })
    .returning();
  return rows[0] as DealRow;
}

export async function updateDeal(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewDeal>,
): Promise<DealRow | null> {
  const rows = await tx
    .update(deals)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(deals.organizationId, organizationId), eq(deals.id, id)))
    .returning();
  return rows[0] ?? null;
}

/**
 * Keeps one move of a deal in its history (deal_stage_changes), stamped with the transaction time
 * like the deal's stageEnteredAt: the contact timeline's DEAL_MOVE items are read from here.
 */
export async function insertDealStageChange(tx: Tx, row: NewDealStageChange): Promise<void> {
  await tx.insert(dealStageChanges).values(row);
}

/**
 * Puts the deal in another stage as of the transaction time (so stageEnteredAt, closedAt and the
 * events' timestamp agree): closedAt is stamped when it closes and cleared when it reopens.
 */
export async function moveDealToStage(
  tx: Tx,
  organizationId: string,
  id: string,
  move: {
    stageId: string;
    status: DealRow['status'];
    probability: number;
    closes: boolean;
    lostReason: string | null;
  },
): Promise<DealRow | null> {
  const rows = await tx
    .update(deals)
    .set({
      stageId: move.stageId,
      status: move.status,
      probability: move.probability,
      lostReason: move.lostReason,
      stageEnteredAt: sql`now()`,
      closedAt: move.closes ? sql`now()` : null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(deals.organizationId, organizationId), eq(deals.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteDeal(tx: Tx, organizationId: string, id: string): Promise<DealRow | null> {
  const rows = await tx
    .delete(deals)
    .where(and(eq(deals.organizationId, organizationId), eq(deals.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** Deal list filters, already parsed by the service (instants as Dates). */
export interface DealListFilter {
  pipelineId?: string;
  stageId?: string;
  status?: DealRow['status'];
  agentId?: string;
  contactId?: string;
  intent?: DealRow['intent'];
  leadSource?: DealRow['leadSource'];
  expectedCloseAfter?: Date;
  expectedCloseBefore?: Date;
  createdAfter?: Date;
  createdBefore?: Date;
}

export interface DealListSort {
  by: 'createdAt' | 'updatedAt' | 'value' | 'expectedCloseDate' | 'stageEnteredAt';
  order: 'asc' | 'desc';
}

const SORT_COLUMNS: Record<DealListSort['by'], AnyColumn> = {
  createdAt: deals.createdAt,
  updatedAt: deals.updatedAt,
  value: deals.value,
  expectedCloseDate: deals.expectedCloseDate,
  stageEnteredAt: deals.stageEnteredAt,
};

function dealConditions(organizationId: string, filter: DealListFilter): SQL[] {
  const c: SQL[] = [eq(deals.organizationId, organizationId)];
  if (filter.pipelineId !== undefined) c.push(eq(deals.pipelineId, filter.pipelineId));
  if (filter.stageId !== undefined) c.push(eq(deals.stageId, filter.stageId));
  if (filter.status !== undefined) c.push(eq(deals.status, filter.status));
  if (filter.agentId !== undefined) c.push(eq(deals.agentId, filter.agentId));
  if (filter.contactId !== undefined) c.push(eq(deals.contactId, filter.contactId));
  if (filter.intent !== undefined) c.push(eq(deals.intent, filter.intent));
  if (filter.leadSource !== undefined) c.push(eq(deals.leadSource, filter.leadSource));
  if (filter.expectedCloseAfter) c.push(gte(deals.expectedCloseDate, filter.expectedCloseAfter));
  if (filter.expectedCloseBefore) c.push(lt(deals.expectedCloseDate, filter.expectedCloseBefore));
  if (filter.createdAfter) c.push(gte(deals.createdAt, filter.createdAfter));
  if (filter.createdBefore) c.push(lt(deals.createdAt, filter.createdBefore));
  return c;
}

/** One page of the organization's deals matching `filter`, and the count of all matches. */
export async function listDeals(
  tx: Tx,
  organizationId: string,
  filter: DealListFilter,
  sort: DealListSort,
  page: { limit: number; offset: number },
): Promise<{ items: DealWithStage[]; total: number }> {
  const where = and(...dealConditions(organizationId, filter));
  const column = SORT_COLUMNS[sort.by];
  const order =
    sort.order === 'asc'
      ? [sql`${column} ASC NULLS LAST`, asc(deals.id)]
      : [sql`${column} DESC NULLS LAST`, desc(deals.id)];
  const [items, total] = await Promise.all([
    withStage(tx)
      .where(where)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset),
    countMatches(tx, deals, where),
  ]);
  return { items, total };
}

/**
 * A cursor page: the deals matching `filter` after the keyset's position, oldest change first. The
 * stage name is a per-row subquery, not a join: joined, the planner cannot tell that every deal's
 * stage is its own organization's, expects the join to drop most rows, and sorts the whole
 * organization instead of reading deals_organization_id_updated_at_idx up to the page's end.
 */
export async function listDealsByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: DealListFilter,
  keyset: Keyset,
): Promise<Keyed<DealWithStage>[]> {
  const stageName = sql<string>`(SELECT ${pipelineStages.name} FROM ${pipelineStages} WHERE ${pipelineStages.id} = ${deals.stageId})`;
  const rows = await tx
    .select({ deal: deals, stageName, position: keysetPosition(deals.updatedAt) })
    .from(deals)
    .where(and(...dealConditions(organizationId, filter), ...keysetConditions(deals, keyset)))
    .orderBy(...keysetOrder(deals))
    .limit(keyset.limit);
  return rows.map(({ deal, stageName, position }) => ({
    row: { deal, stageName },
    key: { updatedAt: position, id: deal.id },
  }));
}

/** A contact's deals with their stage names, locked for a handover (merge or erasure), by id. */
export async function lockDealsOfContact(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<DealWithStage[]> {
  return withStage(tx)
    .where(and(eq(deals.organizationId, organizationId), eq(deals.contactId, contactId)))
    .orderBy(asc(deals.id))
    .for('update', { of: deals });
}

/** Rewrites the lost reasons of the stage history of `dealIds` (an erasure's redaction). */
export async function rewriteStageHistoryReasons(
  tx: Tx,
  dealIds: string[],
  rewrite: (text: string) => string,
): Promise<void> {
  if (dealIds.length === 0) return;
  const history = await tx
    .select({
      organizationId: dealStageChanges.organizationId,
      id: dealStageChanges.id,
      lostReason: dealStageChanges.lostReason,
    })
    .from(dealStageChanges)
    .where(and(inArray(dealStageChanges.dealId, dealIds), isNotNull(dealStageChanges.lostReason)));
  for (const change of history) {
    const lostReason = rewrite(change.lostReason as string);
    if (lostReason !== change.lostReason)
      await tx
        .update(dealStageChanges)
        .set({ lostReason })
        .where(
          and(eq(dealStageChanges.organizationId, change.organizationId), eq(dealStageChanges.id, change.id)),
        );
  }
}
