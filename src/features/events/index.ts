// The event catalog: `GET /v1/events`.
import { defineFeature } from '../../platform/features/manifest.ts';
import { eventsRoutes } from './events.routes.ts';
import { eventsSchemas } from './events.schema.ts';

/** The events feature's manifest (src/features.ts lists it). */
export const eventsFeature = defineFeature({
  name: 'events',
  examples: {
    fields: {
      description: 'Bright three-bedroom flat with a sea view, two minutes from the beach.',
    },
  },
  tags: [{ name: 'Events', description: 'The event catalog and the event log' }],
  schemas: eventsSchemas,
  routes: [eventsRoutes],
});
