// API keys (publishable, secret, read-only; live and test), in the operator's back office.
import { EXAMPLE_KEY } from '../../platform/http/openapi-examples.ts';
import { apiKeysPersonalData } from './api-keys.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { apiKeysAdminRoutes } from './api-keys.admin.routes.ts';
import { ApiKeyCreated, ApiKeyUpdated } from './api-keys.events.ts';
import { apiKeysSchemas } from './api-keys.schema.ts';

export type {
  AdminApiKey,
  CreateApiKeyBody,
  CreatedApiKey,
  ListApiKeysQuery,
  RollApiKeyBody,
  RolledApiKey,
  UpdateApiKeyBody,
} from './api-keys.schema.ts';
export {
  AdminApiKeySchema,
  CreateApiKeyBodySchema,
  CreatedApiKeySchema,
  ListApiKeysQuerySchema,
  MAX_OVERLAP_HOURS,
  RollApiKeyBodySchema,
  RolledApiKeySchema,
  UpdateApiKeyBodySchema,
} from './api-keys.schema.ts';
export {
  createApiKey,
  getApiKey,
  listApiKeys,
  rollApiKey,
  updateApiKey,
  type ApiKeysDeps,
} from './api-keys.service.ts';

/** The api-keys feature's manifest (src/features.ts lists it). */
export const apiKeysFeature = defineFeature({
  name: 'api-keys',
  personalData: apiKeysPersonalData,
  examples: {
    ids: {
      organizationId: 'org',
    },
    schemaIds: {
      AdminApiKey: 'key',
      CreatedApiKey: 'key',
    },
    fields: {
      keyPrefix: 'service_sk_live_AbC1',
      key: `service_sk_live_${EXAMPLE_KEY}`,
    },
  },
  schemas: apiKeysSchemas,
  routes: [apiKeysAdminRoutes],
  events: [ApiKeyCreated, ApiKeyUpdated],
});
