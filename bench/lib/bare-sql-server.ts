/**
 * Child-process entry: the baseline of the portal scenario. One route, GET /v1/properties, whose
 * handler runs the service's own search (`searchPortalProperties`: same filter parsing, same drizzle
 * statements, same mapping) on a plain pg Pool (`bare-tenant-route.ts`: no RLS, no key verification or
 * rate limiting). It runs in a transaction with the tenant set: the portal's columns read the
 * organization's settings (price drops, default language) from it, so without one its answers differ.
 */
import {
  PortalListQuerySchema,
  type PortalListQuery,
} from '../../src/features/properties/properties.portal.schema.ts';
import {
  PortalPropertyListResponseSchema,
  propertiesSchemas,
} from '../../src/features/properties/properties.schema.ts';
import { searchPortalProperties } from '../../src/features/properties/properties.portal.ts';
import type { Caller } from '../../src/platform/auth/caller.ts';
import { CursorMetaSchema, PageMetaSchema } from '../../src/platform/http/schemas.ts';
import { listenBareTenantRoute, type BareTenantRouteOptions } from './bare-tenant-route.ts';
import { serveChild } from './protocol.ts';
import { captureSql, type CaptureOptions } from './sql-capture.ts';

export interface BareSqlServerOptions extends BareTenantRouteOptions {
  captureSql?: CaptureOptions;
}

serveChild<BareSqlServerOptions>(async (options) => {
  if (options.captureSql) captureSql(options.captureSql);
  return listenBareTenantRoute(options, {
    url: '/v1/properties',
    // The list's meta is PageMeta or CursorMeta (cursor mode): both named schemas are referred to.
    schemas: [PageMetaSchema, CursorMetaSchema, ...propertiesSchemas],
    querystring: PortalListQuerySchema,
    response: PortalPropertyListResponseSchema,
    transaction: true,
    read: (db, organizationId, query) => {
      // What the search reads of its caller: the organization.
      const caller = { organization: { id: organizationId } } as unknown as Caller;
      return searchPortalProperties(db, caller, query as PortalListQuery);
    },
  });
});
