// Lead capture and visit requests from the portal.
import { defineFeature } from '../../platform/features/manifest.ts';
import { LeadSubmitted, VisitRequested } from './leads.events.ts';
import { leadsRoutes } from './leads.routes.ts';
import { leadsSchemas } from './leads.schema.ts';

/** The leads feature's manifest (src/features.ts lists it). */
export const leadsFeature = defineFeature({
  name: 'leads',
  schemas: leadsSchemas,
  routes: [leadsRoutes],
  events: [LeadSubmitted, VisitRequested],
});
