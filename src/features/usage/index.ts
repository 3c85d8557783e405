// Product usage events and their daily aggregates.
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { usageRoutes } from './usage.routes.ts';
import { usageSchemas } from './usage.schema.ts';
import { purgeUsageDetail } from './usage.service.ts';

/** USAGE_DETAIL_RETENTION_DAYS's default, for callers that pass no config (tests). */
const DEFAULT_USAGE_DETAIL_RETENTION_DAYS = 90;

/** The usage feature's manifest (src/features.ts lists it). */
export const usageFeature = defineFeature({
  name: 'usage',
  schemas: usageSchemas,
  routes: [usageRoutes],
  jobs: ({ db, config }: JobContext) => [
    {
      // Raw usage detail past its retention; the daily aggregates are kept for good.
      name: 'usage.purge',
      intervalMs: 60 * 60_000,
      async run() {
        await purgeUsageDetail(db, config.usageDetailRetentionDays ?? DEFAULT_USAGE_DETAIL_RETENTION_DAYS);
      },
    },
  ],
});
