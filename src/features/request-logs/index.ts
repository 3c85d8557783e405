// Request logs (issue 22): what the API answered each organization's keys, for the operator and the
// developer console. Recording is a platform mechanism (platform/request-logs); this is the reading
// side and the retention purge.
import { CONFIG_DEFAULTS } from '../../config.ts';
import { requestLogsPersonalData } from './request-logs.personal-data.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { requestLogsAdminRoutes } from './request-logs.admin.routes.ts';
import { requestLogsSchemas } from './request-logs.schema.ts';
import { purgeRequestLogs } from './request-logs.service.ts';

export type { ListRequestLogsQuery, RequestLog } from './request-logs.schema.ts';
export { ListRequestLogsQuerySchema, RequestLogListResponseSchema } from './request-logs.schema.ts';
export { listRequestLogs, purgeRequestLogs, type RequestLogOrganization } from './request-logs.service.ts';

/** The request-logs feature's manifest (src/features.ts lists it). */
export const requestLogsFeature = defineFeature({
  name: 'request-logs',
  personalData: requestLogsPersonalData,
  examples: {
    ids: {
      requestId: 'req',
    },
    fields: {
      method: 'GET',
    },
  },
  schemas: requestLogsSchemas,
  routes: [requestLogsAdminRoutes],
  jobs: ({ db, config }: JobContext) => [
    {
      // Lines past their retention, oldest first, in batches.
      name: 'request-logs.purge',
      intervalMs: 60 * 60_000,
      async run() {
        await purgeRequestLogs(db, config.requestLogRetentionDays ?? CONFIG_DEFAULTS.requestLogRetentionDays);
      },
    },
  ],
});
