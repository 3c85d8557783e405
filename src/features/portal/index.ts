// Portal settings and `GET /v1/portal`.
import { defineFeature } from '../../platform/features/manifest.ts';
import { portalRoutes } from './portal.routes.ts';
import { portalSchemas } from './portal.schema.ts';

export type { UpdatePortalSettingsBody } from './portal.schema.ts';
export { updatePortalSettings } from './portal.service.ts';

/** The portal feature's manifest (src/features.ts lists it). */
export const portalFeature = defineFeature({
  name: 'portal',
  schemas: portalSchemas,
  routes: [portalRoutes],
});
