// The demo agency (seeded through every feature's own services) and the demo portal page at /demo/.
import { EXAMPLE_KEY } from '../../platform/http/openapi-examples.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { demoAdminRoutes } from './demo.admin.routes.ts';
import { demoRoutes } from './demo.routes.ts';
import { demoSchemas } from './demo.schema.ts';

export { DEMO_WEB_DIR, type DemoPortalSettings } from './demo.routes.ts';
export type { DemoSeed } from './demo.schema.ts';
export { DEMO_ORGANIZATION_NAME, seedDemo, seedDemoIfEmpty } from './demo.service.ts';

/** The demo feature's manifest (src/features.ts lists it). */
export const demoFeature = defineFeature({
  name: 'demo',
  examples: {
    fields: {
      secretKey: `service_sk_live_${EXAMPLE_KEY}`,
      publishableKey: `service_pk_live_${EXAMPLE_KEY}`,
    },
  },
  schemas: demoSchemas,
  routes: [demoRoutes, demoAdminRoutes],
});
