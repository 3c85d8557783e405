/**
 * Child-process entry: the baseline of the contacts scenario. One route, GET /v1/contacts, whose
 * handler runs the service's own `listContacts` (same `q` folding, same drizzle statements, same
 * mapping) on a plain pg Pool (`bare-tenant-route.ts`: no transaction, no RLS, no key verification or
 * rate limiting).
 */
import {
  ContactListResponseSchema,
  contactsSchemas,
  ListContactsQuerySchema,
} from '../../src/features/contacts/contacts.schema.ts';
import { listContacts } from '../../src/features/contacts/contacts.service.ts';
import type { Caller } from '../../src/platform/auth/caller.ts';
import { CursorMetaSchema, PageMetaSchema } from '../../src/platform/http/schemas.ts';
import { listenBareTenantRoute, type BareTenantRouteOptions } from './bare-tenant-route.ts';
import { serveChild } from './protocol.ts';

export type ContactsBareServerOptions = BareTenantRouteOptions;

serveChild<ContactsBareServerOptions>((options) =>
  listenBareTenantRoute(options, {
    url: '/v1/contacts',
    // The list's meta is PageMeta or CursorMeta (cursor mode): both named schemas are referred to.
    schemas: [PageMetaSchema, CursorMetaSchema, ...contactsSchemas],
    querystring: ListContactsQuerySchema,
    response: ContactListResponseSchema,
    read: (db, organizationId, query) => {
      const caller = { organization: { id: organizationId } } as unknown as Caller;
      return listContacts(db, caller, query as never);
    },
  }),
);
