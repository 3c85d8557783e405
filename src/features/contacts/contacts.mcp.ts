import { ListOf, pageModeQuery, pageOnly, pageRequest } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool, type McpCountDefinition, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import { ContactSchema, ListContactsQuerySchema } from './contacts.schema.ts';
import { listContacts } from './contacts.service.ts';

export const searchContactsTool = defineTool({
  name: 'search_contacts',
  title: 'Search contacts',
  description:
    "Searches the agency's contacts (leads, clients, owners...), exactly like GET /v1/contacts. Every argument " +
    'is optional and they combine with AND. `q` matches case- and accent-insensitive substrings of name, email ' +
    'and phone (every word must match; "612 345" finds +34612345678). Filter by `status`, `source`, `type`, ' +
    '`tag`, `ownerId` (agent), `optedOut`, `externalId`, or a creation range (`createdAfter` inclusive, ' +
    '`createdBefore` strict; dates or date-times). Newest first unless `sortBy`/`sortOrder` say otherwise ' +
    '(`score` ranks the most engaged). Paged: `page` from 1, `pageSize` up to 100 (default 20).',
  scopes: ['contacts:read'],
  input: pageModeQuery(ListContactsQuerySchema),
  output: ListOf(ref(ContactSchema)),
  run: async ({ db, caller }, args) => pageOnly(await listContacts(db, caller, args)),
  summarize: (result) => pageSummary(result, 'contact'),
});

export const contactsMcpTools = [searchContactsTool];

/** The MCP summary's count of the contacts feature. */
export const contactsMcpCounts: McpCountDefinition[] = [
  {
    name: 'contacts',
    description: 'All contacts (contacts:read)',
    scope: 'contacts:read',
    count: async ({ db, caller }) =>
      pageOnly(await listContacts(db, caller, pageRequest({ page: 1, pageSize: 1 }))).meta.total,
  },
];
