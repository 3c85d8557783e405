// Organizations and their test twins, in the operator's back office.
import { organizationsPersonalData } from './organizations.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { organizationsAdminRoutes } from './organizations.admin.routes.ts';
import { organizationsSchemas } from './organizations.schema.ts';

export { AdminOrganizationSchema, type AdminOrganization } from './organizations.schema.ts';
export {
  countOrganizations,
  createOrganization,
  deleteOrganization,
  loadOrganization,
  type OrganizationRecord,
  updateOrganization,
} from './organizations.service.ts';

/** The organizations feature's manifest (src/features.ts lists it). */
export const organizationsFeature = defineFeature({
  name: 'organizations',
  personalData: organizationsPersonalData,
  tags: [
    {
      name: 'Admin',
      description: 'Operator back office: organizations, API keys and the demo seed (admin bearer token)',
    },
  ],
  examples: {
    ids: {
      testOrganizationId: 'org',
      liveOrganizationId: 'org',
    },
    schemaIds: {
      AdminOrganization: 'org',
    },
    fields: {
      'AdminOrganization.name': 'Demo Realty',
      defaultCurrency: 'EUR',
      defaultCountry: 'ES',
      defaultLanguage: 'es',
    },
  },
  schemas: organizationsSchemas,
  routes: [organizationsAdminRoutes],
});
