import type { Static } from '@fastify/type-provider-typebox';
import { defineTool, pageSummary } from '../../mcp/mcp-tool.ts';
import { listPipelines } from './deals-pipelines.service.ts';
import {
  DealListResponseSchema,
  ListDealsQuerySchema,
  ListPipelinesQuerySchema,
  PipelineListResponseSchema,
} from './deals.schema.ts';
import { listDeals } from './deals.service.ts';

export const listPipelinesTool = defineTool({
  name: 'list_pipelines',
  title: 'List sales pipelines',
  description:
    "The agency's sales pipelines, the default first, each with its stages in order (name, kind OPEN/WON/LOST, " +
    'probability). Use the ids with list_deals (`pipelineId`, `stageId`). Paged like every list.',
  scopes: ['deals:read'],
  input: ListPipelinesQuerySchema,
  output: PipelineListResponseSchema,
  run: ({ db, principal }, args) => listPipelines(db, principal.organization.id, args),
  summarize: (result) => pageSummary(result, 'pipeline'),
});

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
  input: ListDealsQuerySchema,
  output: DealListResponseSchema,
  run: ({ db, principal }, args: Static<typeof ListDealsQuerySchema>) => {
    const { page, pageSize, ...filter } = args;
    return listDeals(db, principal.organization.id, filter, { page, pageSize });
  },
  summarize: (result) => pageSummary(result, 'deal'),
});

export const dealsMcpTools = [listPipelinesTool, listDealsTool];
