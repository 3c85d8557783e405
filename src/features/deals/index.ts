// Deals: the v1 API, the back office and stage moves (deal.won, deal.lost).
import { dealsPersonalData } from './deals.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { dealEvents } from './deals.events.ts';
import { dealsMcpTools, dealsMcpCounts } from './deals.mcp.ts';
import { dealsRoutes } from './deals.routes.ts';
import { dealsSchemas } from './deals.schema.ts';

export { listDeals } from './deals.read.ts';
export { createDeal, moveDeal } from './deals.service.ts';
export { handOverDeals } from './deals.handover.ts';

/** The deals feature's manifest (src/features.ts lists it). */
export const dealsFeature = defineFeature({
  name: 'deals',
  personalData: dealsPersonalData,
  scopes: [
    { name: 'deals:read', description: 'reads deals and pipelines' },
    {
      name: 'deals:write',
      description: 'creates, changes and moves deals (support approval)',
      approval: true,
    },
  ],
  tags: [
    { name: 'Deals', description: 'Deals through the pipelines: lists, one deal, stage moves' },
    { name: 'Admin: deals', description: 'Deals of any pipeline, with stage moves and deletion (admin)' },
  ],
  examples: {
    ids: {
      pipelineId: 'pl',
      stageId: 'stg',
      dealId: 'deal',
    },
    fields: {
      'Deal.code': 'DL-000042',
      lostReason: 'Bought elsewhere',
      saasPlanId: 'plan_pro',
      saasPlanName: 'Professional',
      expectedCloseDate: '2027-04-30',
      trialStartedAt: '2027-03-01',
      trialEndsAt: '2027-03-31',
      stageName: 'Visit done',
    },
  },
  schemas: dealsSchemas,
  routes: [dealsRoutes],
  mcpTools: dealsMcpTools,
  mcpCounts: dealsMcpCounts,
  events: dealEvents,
});
