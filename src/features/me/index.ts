// `GET /v1/me`: the calling key and its organization.
import { defineFeature } from '../../platform/features/manifest.ts';
import { meRoutes } from './me.routes.ts';
import { meSchemas } from './me.schema.ts';

export { MeSchema } from './me.schema.ts';
export { describeKey } from './me.service.ts';

/** The me feature's manifest (src/features.ts lists it). */
export const meFeature = defineFeature({
  name: 'me',
  tags: [
    { name: 'Introspection', description: 'Who am I: the calling key, its organization and its rate limits' },
  ],
  examples: {
    ids: {
      apiKeyId: 'key',
      agentId: 'agt',
    },
    fields: {
      name: 'Demo Realty',
    },
  },
  schemas: meSchemas,
  routes: [meRoutes],
});
