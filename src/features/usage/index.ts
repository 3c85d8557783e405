// Product usage events and their daily aggregates.
import { CONFIG_DEFAULTS } from '../../config.ts';
import { usagePersonalData } from './usage.personal-data.ts';
import { defineFeature, type JobContext } from '../../platform/features/manifest.ts';
import { usageRoutes } from './usage.routes.ts';
import { usageSchemas } from './usage.schema.ts';
import { purgeUsageDetail } from './usage.service.ts';

/** The usage feature's manifest (src/features.ts lists it). */
export const usageFeature = defineFeature({
  name: 'usage',
  personalData: usagePersonalData,
  examples: {
    fields: {
      actorLabel: 'API key service_sk_live_AbC1',
    },
  },
  tags: [{ name: 'Usage', description: 'Product usage events of the integrator’s own users' }],
  schemas: usageSchemas,
  routes: [usageRoutes],
  jobs: ({ db, config }: JobContext) => [
    {
      // Raw usage detail past its retention; the daily aggregates are kept for good.
      name: 'usage.purge',
      intervalMs: 60 * 60_000,
      async run() {
        await purgeUsageDetail(
          db,
          config.usageDetailRetentionDays ?? CONFIG_DEFAULTS.usageDetailRetentionDays,
        );
      },
    },
  ],
});
