import type { Static } from '@fastify/type-provider-typebox';
import { ListOf, pageModeQuery, pageOnly, pageRequest } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool, type McpCountDefinition, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import { DealSchema, ListDealsQuerySchema } from './deals.schema.ts';
import { listDeals } from './deals.read.ts';

const ListDealsInputSchema = pageModeQuery(ListDealsQuerySchema);

export const listDealsTool = defineTool({
  name: 'list_deals',
  title: 'List deals',
  description:
    'Deals (sales and rentals in progress, won or lost), with the same filters as GET /v1/deals, combined with ' +
    'AND: `pipelineId`, `stageId`, `status` (OPEN, WON, LOST), `agentId`, `contactId`, `intent`, `leadSource`, ' +
    'an expected-close range (`expectedCloseAfter` inclusive, `expectedCloseBefore` strict) and a creation ' +
    'range; dates or date-times. Newest first unless `sortBy`/`sortOrder` say otherwise (`expectedCloseDate` ' +
    'lists the soonest closings first). `value` is in `currency`. Paged: `page` from 1, `pageSize` up to 100.',
  scopes: ['deals:read'],
  input: ListDealsInputSchema,
  output: ListOf(ref(DealSchema)),
  run: async ({ db, caller }, args: Static<typeof ListDealsInputSchema>) => {
    const { page, pageSize, ...filter } = args;
    return pageOnly(await listDeals(db, caller, filter, { page, pageSize }));
  },
  summarize: (result) => pageSummary(result, 'deal'),
});

export const dealsMcpTools = [listDealsTool];

/** The MCP summary's count of the deals feature. */
export const dealsMcpCounts: McpCountDefinition[] = [
  {
    name: 'openDeals',
    description: 'Deals in an OPEN stage (deals:read)',
    scope: 'deals:read',
    count: async ({ db, caller }) =>
      pageOnly(await listDeals(db, caller, { status: 'OPEN' }, pageRequest({ page: 1, pageSize: 1 }))).meta
        .total,
  },
];
