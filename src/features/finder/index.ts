// The guided property finder.
import { finderPersonalData } from './finder.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { FinderSubmitted } from './finder.events.ts';
import { finderMcpTools } from './finder.mcp.ts';
import { finderRoutes } from './finder.routes.ts';
import { finderSchemas } from './finder.schema.ts';

/** The finder feature's manifest (src/features.ts lists it). */
export const finderFeature = defineFeature({
  name: 'finder',
  personalData: finderPersonalData,
  examples: {
    ids: {
      searchId: 'fnd',
    },
  },
  scopes: [{ name: 'finder:write', description: 'runs the guided property finder', publishable: true }],
  tags: [{ name: 'Finder', description: 'The guided property finder: criteria in, scored matches out' }],
  schemas: finderSchemas,
  routes: [finderRoutes],
  mcpTools: finderMcpTools,
  events: [FinderSubmitted],
});
