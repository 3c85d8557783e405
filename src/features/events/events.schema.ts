import { Type } from '@fastify/type-provider-typebox';
import { pageQuery, ListOf } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';

export const EventTypeSchema = Type.Object(
  {
    type: Type.String({ description: 'Event type, e.g. contact.created' }),
    description: Type.String(),
    example: Type.Object({}, { additionalProperties: true, description: 'An example `data` payload' }),
    schema: Type.Object({}, { additionalProperties: true, description: 'JSON Schema of `data`' }),
  },
  { $id: 'EventType', additionalProperties: false },
);

export const CATALOG_MAX_PAGE_SIZE = 100;
export const EventCatalogQuerySchema = Type.Object(
  pageQuery({ maxPageSize: CATALOG_MAX_PAGE_SIZE, defaultPageSize: CATALOG_MAX_PAGE_SIZE }),
  { additionalProperties: false },
);
export const EventCatalogResponseSchema = ListOf(ref(EventTypeSchema));
export const eventsSchemas = [EventTypeSchema];
