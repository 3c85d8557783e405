/**
 * Child-process entry: the baseline of the property-detail scenario. One route,
 * GET /v1/properties/:id, whose handler runs the service's own `getPortalProperty` (same statement,
 * same mapping, same response schema) on a plain pg Pool (`bare-tenant-route.ts`).
 */
import {
  PortalPropertyResponseSchema,
  PropertyIdParamsSchema,
  propertiesSchemas,
} from '../../src/features/properties/properties.schema.ts';
import { getPortalProperty } from '../../src/features/properties/properties.portal.ts';
import type { Caller } from '../../src/platform/auth/caller.ts';
import { listenBareTenantRoute, type BareTenantRouteOptions } from './bare-tenant-route.ts';
import { serveChild } from './protocol.ts';

export type DetailBareServerOptions = BareTenantRouteOptions;

serveChild<DetailBareServerOptions>((options) =>
  listenBareTenantRoute(options, {
    url: '/v1/properties/:id',
    schemas: propertiesSchemas,
    params: PropertyIdParamsSchema,
    response: PortalPropertyResponseSchema,
    read: async (db, organizationId, _query, request) => ({
      data: await getPortalProperty(
        db,
        // What the read takes of its caller: the organization.
        { organization: { id: organizationId } } as unknown as Caller,
        (request.params as { id: string }).id,
      ),
    }),
  }),
);
