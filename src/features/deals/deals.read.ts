// Reading deals: lists with their filters and sorts, and one deal (v1, back office, MCP).
import type { Database, Tx } from '../../db/database.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { listPage, listRequest, type ListMeta } from '../../platform/http/pagination.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import { type Deal, type DealFilter } from './deals.schema.ts';
import * as store from './deals.store.ts';
import { loadDeal, toDeal } from './deals.service.ts';

/** Turns list query parameters into a store filter; 400 when a range ends before it starts. */
function dealListFilter(filter: DealFilter): store.DealListFilter {
  const parsed: store.DealListFilter = {
    pipelineId: filter.pipelineId,
    stageId: filter.stageId,
    status: filter.status,
    agentId: filter.agentId,
    contactId: filter.contactId,
    intent: filter.intent,
    leadSource: filter.leadSource,
  };
  for (const [after, before] of [
    ['expectedCloseAfter', 'expectedCloseBefore'],
    ['createdAfter', 'createdBefore'],
  ] as const) {
    const from =
      filter[after] === undefined ? undefined : parseDateOrDateTime(filter[after], `query.${after}`);
    const to =
      filter[before] === undefined ? undefined : parseDateOrDateTime(filter[before], `query.${before}`);
    if (from && to && from >= to) throw Errors.invalidField(`query.${before}`, `must be later than ${after}`);
    parsed[after] = from;
    parsed[before] = to;
  }
  return parsed;
}

function dealListSort(filter: DealFilter): store.DealListSort {
  const by = filter.sortBy ?? 'createdAt';
  return { by, order: filter.sortOrder ?? (by === 'expectedCloseDate' ? 'asc' : 'desc') };
}

/**
 * A checked list request: filters parsed, sort resolved, page or cursor page computed (before any
 * transaction opens).
 */
function dealListRequest(
  organizationId: string,
  filter: DealFilter,
  query: { page?: number; pageSize?: number },
) {
  return {
    filter: dealListFilter(filter),
    sort: dealListSort(filter),
    page: listRequest(
      { ...filter, page: query.page, pageSize: query.pageSize },
      { list: 'deals', organizationId },
    ),
  };
}

const dealOf = (item: store.DealWithStage) => toDeal(item.deal, item.stageName);

async function dealsPage(
  tx: Tx,
  organizationId: string,
  request: ReturnType<typeof dealListRequest>,
): Promise<{ data: Deal[]; meta: ListMeta }> {
  const { filter, sort } = request;
  return listPage(
    request.page,
    {
      cursor: (keyset) => store.listDealsByUpdatedAt(tx, organizationId, filter, keyset),
      page: (page) => store.listDeals(tx, organizationId, filter, sort, page),
    },
    dealOf,
  );
}

/**
 * The caller's organization's deals matching `filter` (filters and sort), one page, or a cursor page
 * when `filter` holds `updatedAfter` or `cursor` (v1 and the back office; the MCP tool pages only).
 */
export async function listDeals(
  db: Database,
  caller: Caller,
  filter: DealFilter,
  page: { page?: number; pageSize?: number } = {},
): Promise<{ data: Deal[]; meta: ListMeta }> {
  const organizationId = caller.organization.id;
  const request = dealListRequest(organizationId, filter, page);
  return readAs(db, caller, (tx) => dealsPage(tx, organizationId, request));
}

/** One deal of the caller's organization; 404 when malformed, unknown or another tenant's. */
export async function getDeal(db: Database, caller: Caller, dealId: string): Promise<Deal> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) => {
    const found = await loadDeal(tx, organizationId, dealId);
    return toDeal(found.deal, found.stageName);
  });
}
