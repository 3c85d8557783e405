import { eventCatalog } from '../../platform/events/catalog.ts';
import { pageArray, type PageRequest } from '../../platform/http/pagination.ts';

/** One page of the event catalog: every type with its description, example payload and schema. */
export function listEventTypes(page: PageRequest) {
  const entries = eventCatalog.list().map((definition) => ({
    type: definition.type,
    description: definition.description,
    example: definition.example as Record<string, unknown>,
    schema: JSON.parse(JSON.stringify(definition.schema)) as Record<string, unknown>,
  }));
  return pageArray(entries, page);
}
