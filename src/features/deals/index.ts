// Deals: the v1 API, the back office and stage moves (deal.won, deal.lost).
import { defineFeature } from '../../platform/features/manifest.ts';
import { dealEvents } from './deals.events.ts';
import { dealsMcpTools } from './deals.mcp.ts';
import { dealsRoutes } from './deals.routes.ts';
import { dealsSchemas } from './deals.schema.ts';

export { listDeals } from './deals.read.ts';
export { createDeal, moveDeal } from './deals.service.ts';
export { handOverDeals } from './deals.handover.ts';

/** The deals feature's manifest (src/features.ts lists it). */
export const dealsFeature = defineFeature({
  name: 'deals',
  schemas: dealsSchemas,
  routes: [dealsRoutes],
  mcpTools: dealsMcpTools,
  events: dealEvents,
});
