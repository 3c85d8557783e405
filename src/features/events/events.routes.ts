import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { pageRequest } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  CATALOG_MAX_PAGE_SIZE,
  EventCatalogQuerySchema,
  EventCatalogResponseSchema,
} from './events.schema.ts';
import { listEventTypes } from './events.service.ts';

export const eventsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/events',
    {
      config: { auth: { scope: 'events:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'events.catalog',
        summary: 'List the event catalog',
        description:
          'Every event type the service emits, with a description, an example payload and its JSON Schema.',
        tags: ['Events'],
        querystring: EventCatalogQuerySchema,
        response: { 200: EventCatalogResponseSchema },
      },
    },
    async (request) => listEventTypes(pageRequest(request.query, CATALOG_MAX_PAGE_SIZE)),
  );
};
