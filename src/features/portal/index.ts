// Portal settings and `GET /v1/portal`.
import { portalPersonalData } from './portal.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { portalRoutes } from './portal.routes.ts';
import { portalSchemas } from './portal.schema.ts';

export type { UpdatePortalSettingsBody } from './portal.schema.ts';
export { updatePortalSettings } from './portal.service.ts';

/** The portal feature's manifest (src/features.ts lists it). */
export const portalFeature = defineFeature({
  name: 'portal',
  personalData: portalPersonalData,
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
  examples: {
    fields: {
      agencyName: 'Demo Realty',
      messagingPhone: '+34600111222',
      logoUrl: 'https://cdn.example.com/demo-realty/logo.svg',
      openingHours: 'Mon-Fri 9:00-19:00',
      primary: '#0B5FFF',
      secondary: '#14213D',
      accent: '#FCA311',
      background: '#FFFFFF',
      text: '#111111',
    },
  },
  schemas: portalSchemas,
  routes: [portalRoutes],
});
