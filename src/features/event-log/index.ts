// The event log: every event of an organization in commit order, for integrators who mirror it.
import { CONFIG_DEFAULTS } from '../../config.ts';
import { eventLogPersonalData } from './event-log.personal-data.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { eventLogRoutes } from './event-log.routes.ts';
import { eventLogSchemas } from './event-log.schema.ts';
import { purgeEventLog } from './event-log.service.ts';

export { ListEventLogQuerySchema } from './event-log.schema.ts';
export { listEventLog } from './event-log.service.ts';

/** The event log feature's manifest (src/features.ts lists it). */
export const eventLogFeature = defineFeature({
  name: 'event-log',
  personalData: eventLogPersonalData,
  scopes: [{ name: 'events:read', description: 'reads the event catalog and the event log' }],
  schemas: eventLogSchemas,
  routes: [eventLogRoutes],
  jobs: ({ db, config }: JobContext) => [
    {
      // Events past their retention, with their webhook deliveries.
      name: 'event-log.purge',
      intervalMs: 60 * 60_000,
      async run() {
        await purgeEventLog(db, config.eventLogRetentionDays ?? CONFIG_DEFAULTS.eventLogRetentionDays);
      },
    },
  ],
});
