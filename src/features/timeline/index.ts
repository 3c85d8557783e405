// A contact's timeline (issue 21): notes, forms, appointments, deals, messages and usage, newest first.
import { defineFeature } from '../../platform/features/manifest.ts';
import { timelineMcpTools } from './timeline.mcp.ts';
import { timelineRoutes } from './timeline.routes.ts';
import { timelineSchemas } from './timeline.schema.ts';

/** The timeline feature's manifest (src/features.ts lists it). */
export const timelineFeature = defineFeature({
  name: 'timeline',
  schemas: timelineSchemas,
  routes: [timelineRoutes],
  mcpTools: timelineMcpTools,
});
