// Portal settings and `GET /v1/portal`.
import { defineFeature } from '../../platform/features/manifest.ts';
import { portalRoutes } from './portal.routes.ts';
import { portalSchemas } from './portal.schema.ts';

export type { UpdatePortalSettingsBody } from './portal.schema.ts';
export { updatePortalSettings } from './portal.service.ts';

/** The portal feature's manifest (src/features.ts lists it). */
export const portalFeature = defineFeature({
  name: 'portal',
  scopes: [
    {
      name: 'portal:read',
      description: 'reads the public portal: listings, agents, portal data',
      publishable: true,
    },
  ],
  tags: [
    {
      name: 'Portal',
      description: 'The public portal: listings with filters and facets, agents, portal data',
    },
    {
      name: 'Admin: portal',
      description: 'Portal settings: branding, contact details and search options (admin)',
    },
  ],
  schemas: portalSchemas,
  routes: [portalRoutes],
});
