// The agency's developer console (issue 22, docs/console.md): one-time links, sessions, pages.
import { consolePersonalData } from './console.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { consoleApiRoutes } from './console.api.routes.ts';
import { consoleEmailRoutes } from './console.email.routes.ts';
import { consoleRoutes } from './console.routes.ts';
import { consoleSchemas } from './console.schema.ts';
import { consoleWebhookRoutes } from './console.webhooks.routes.ts';

export { mintConsoleLink } from './console.service.ts';

/** The console feature's manifest (src/features.ts lists it). */
export const consoleFeature = defineFeature({
  name: 'console',
  personalData: consolePersonalData,
  examples: {
    fields: {
      url: 'https://hooks.example.com/agency-crm',
    },
  },
  schemas: consoleSchemas,
  routes: [consoleRoutes, consoleApiRoutes, consoleWebhookRoutes, consoleEmailRoutes],
});
