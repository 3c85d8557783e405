import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { OrganizationIdParamsSchema, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import {
  AdminListPropertiesQuerySchema,
  AdminPropertyListResponseSchema,
  AdminPropertyResponseSchema,
  CreatePropertyBodySchema,
  FeaturedQuerySchema,
  OrgPropertyParamsSchema,
  PortalFiltersResponseSchema,
  PortalListQuerySchema,
  PortalPropertyListResponseSchema,
  PortalPropertyResponseSchema,
  PropertyIdParamsSchema,
  UpdatePropertyBodySchema,
  type PortalListQuery,
} from './properties.schema.ts';
import * as properties from './properties.service.ts';
import * as portal from './properties.portal.ts';

const ADMIN = { admin: true } as const;
const PORTAL = { auth: { scope: 'portal:read', keyTypes: ANY_KEY, write: false } } as const;
const ADMIN_TAGS = ['Admin: properties'];
const PORTAL_TAGS = ['Portal'];

/** The public portal's listings (publishable key, portal:read) and the back office's property CRUD. */
export const propertiesRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/properties',
    {
      config: PORTAL,
      schema: {
        operationId: 'properties.list',
        summary: 'Search the published listings',
        description:
          'Only ACTIVE properties published on the portal. Every filter is optional and they combine with AND; ' +
          '`city`, `neighborhood` and `q` match case- and accent-insensitive substrings. ' +
          'Each amenity has a flag (`hasPool=1`, ...). Geo: `bounds=south,west,north,east` or ' +
          '`near=lat,lng&radiusKm=`. A page past the end answers `data: []` with the true `meta`.',
        tags: PORTAL_TAGS,
        querystring: PortalListQuerySchema,
        response: { 200: PortalPropertyListResponseSchema },
      },
    },
    async (request) =>
      portal.searchPortalProperties(
        db,
        principalOf(request).organization.id,
        request.query as PortalListQuery,
      ),
  );

  app.get(
    '/v1/properties/featured',
    {
      config: PORTAL,
      schema: {
        operationId: 'properties.featured.list',
        summary: 'Featured published listings, newest first',
        tags: PORTAL_TAGS,
        querystring: FeaturedQuerySchema,
        response: { 200: PortalPropertyListResponseSchema },
      },
    },
    async (request) => portal.listFeaturedProperties(db, principalOf(request).organization.id, request.query),
  );

  app.get(
    '/v1/properties/:id',
    {
      config: PORTAL,
      schema: {
        operationId: 'properties.get',
        summary: 'One published listing',
        description: '404 when the property is not published, not active, or not of this agency.',
        tags: PORTAL_TAGS,
        params: PropertyIdParamsSchema,
        response: { 200: PortalPropertyResponseSchema },
      },
    },
    async (request) => ({
      data: await portal.getPortalProperty(db, principalOf(request).organization.id, request.params.id),
    }),
  );

  app.get(
    '/v1/filters',
    {
      config: PORTAL,
      schema: {
        operationId: 'portal.filters.get',
        summary: 'Search facets with counts, from the published stock',
        description:
          'Transaction types, types, cities, neighborhoods, bedroom options and amenities with their counts, ' +
          'and price ranges per transaction type and currency: enough to build the search form.',
        tags: PORTAL_TAGS,
        response: { 200: PortalFiltersResponseSchema },
      },
    },
    async (request) => ({ data: await portal.portalFilters(db, principalOf(request).organization.id) }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/properties',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.create',
        summary: 'Create a property',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreatePropertyBodySchema,
        response: { 201: AdminPropertyResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await properties.createProperty(db, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/properties',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.list',
        summary: "List an organization's properties (every status), newest first",
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: AdminListPropertiesQuerySchema,
        response: { 200: AdminPropertyListResponseSchema },
      },
    },
    async (request) => properties.listAdminProperties(db, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.get',
        summary: 'Get a property (back-office view)',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        response: { 200: AdminPropertyResponseSchema },
      },
    },
    async (request) => ({
      data: await properties.getAdminProperty(db, request.params.orgId, request.params.propertyId),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.update',
        summary: 'Change a property',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        body: UpdatePropertyBodySchema,
        response: { 200: AdminPropertyResponseSchema },
      },
    },
    async (request) => ({
      data: await properties.updateProperty(
        db,
        request.params.orgId,
        request.params.propertyId,
        request.body,
      ),
    }),
  );

  app.delete(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.delete',
        summary: 'Delete a property',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await properties.deleteProperty(db, request.params.orgId, request.params.propertyId),
    }),
  );
};
