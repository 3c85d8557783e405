// Portal analytics: `POST /v1/events` and the admin report.
import { analyticsPersonalData } from './analytics.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { analyticsRoutes } from './analytics.routes.ts';
import { analyticsSchemas } from './analytics.schema.ts';

export { recordAnalyticsEventInTx, recordAnalyticsEventSql } from './analytics.service.ts';

/** The analytics feature's manifest (src/features.ts lists it). */
export const analyticsFeature = defineFeature({
  name: 'analytics',
  personalData: analyticsPersonalData,
  scopes: [{ name: 'events:write', description: 'records portal analytics events', publishable: true }],
  tags: [{ name: 'Analytics', description: 'Portal analytics: views, searches and conversions' }],
  schemas: analyticsSchemas,
  routes: [analyticsRoutes],
});
