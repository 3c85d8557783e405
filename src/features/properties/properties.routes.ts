import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { servedLanguage } from '../../platform/http/languages.ts';
import { CURSOR_MODE_DESCRIPTION, pageOnly } from '../../platform/http/pagination.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import type { StorageSettings } from '../../platform/storage/open-storage.ts';
import { OrganizationIdParamsSchema, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import {
  AdminListPropertiesQuerySchema,
  AdminPropertyListResponseSchema,
  AdminPropertyResponseSchema,
  CreatePropertyBodySchema,
  OrgPropertyParamsSchema,
  PortalPropertyListResponseSchema,
  PortalPropertyPageResponseSchema,
  PortalPropertyResponseSchema,
  PropertyIdParamsSchema,
  UpdatePropertyBodySchema,
} from './properties.schema.ts';
import {
  FeaturedQuerySchema,
  PortalFiltersResponseSchema,
  PortalListQuerySchema,
  PortalPropertyQuerySchema,
  type PortalListQuery,
} from './properties.portal.schema.ts';
import { getListing, listListings } from './properties.listings.ts';
import { photoFiles, sweepListingFiles } from './properties.photos.ts';
import * as writes from './properties.writes.ts';
import * as portal from './properties.portal.ts';

const ADMIN = { admin: true } as const;
const PORTAL = { auth: { scope: 'portal:read', keyTypes: ANY_KEY, write: false }, cache: 'portal' } as const;
const ADMIN_TAGS = ['Admin: properties'];
const PORTAL_TAGS = ['Portal'];
const LANGUAGE_NOTE =
  ' Title and description come in the language `lang` asks, else the best of Accept-Language, among the ' +
  "organization's languages (GET /v1/portal), where the listing has it; the organization's default " +
  'otherwise. Each listing says its `language`; Content-Language names the language served.';

/** The language to answer in (Content-Language says it); answers vary on Accept-Language. */
function answerLanguage(request: FastifyRequest, reply: FastifyReply): string {
  const language = servedLanguage(request, callerOf(request).organization);
  reply.header('content-language', language);
  return language;
}

/** The public portal's listings (publishable key, portal:read) and the back office's property CRUD. */
export const propertiesRoutes: FastifyPluginAsyncTypebox<{ db: Database; config: StorageSettings }> = async (
  app,
  { db, config },
) => {
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
          '`near=lat,lng&radiusKm=`. A page past the end answers `data: []` with the true `meta`. ' +
          CURSOR_MODE_DESCRIPTION +
          ' A site mirroring the listings walks this way; a listing that stops being shown (unpublished, ' +
          'no longer ACTIVE, deleted) drops out of the list and never comes again: compare ids on a full walk.' +
          LANGUAGE_NOTE,
        tags: PORTAL_TAGS,
        querystring: PortalListQuerySchema,
        response: { 200: PortalPropertyListResponseSchema },
      },
    },
    async (request, reply) =>
      portal.searchPortalProperties(
        db,
        callerOf(request),
        request.query as PortalListQuery,
        answerLanguage(request, reply),
      ),
  );

  app.get(
    '/v1/properties/featured',
    {
      config: PORTAL,
      schema: {
        operationId: 'properties.featured.list',
        summary: 'Featured published listings, newest first',
        description:
          'Any key type with `portal:read`. Properties marked `featured` that the portal shows (ACTIVE and ' +
          'published), newest first, in the same shape as GET /v1/properties. Paged: `pageSize` 12 by ' +
          'default, at most 48.' +
          LANGUAGE_NOTE,
        tags: PORTAL_TAGS,
        querystring: FeaturedQuerySchema,
        response: { 200: PortalPropertyPageResponseSchema },
      },
    },
    async (request, reply) =>
      portal.listFeaturedProperties(db, callerOf(request), request.query, answerLanguage(request, reply)),
  );

  app.get(
    '/v1/properties/:id',
    {
      config: PORTAL,
      schema: {
        operationId: 'properties.get',
        summary: 'One published listing',
        description:
          '404 when the property is not published, not active, or not of this agency.' +
          LANGUAGE_NOTE +
          " Here Content-Language is the language of this listing's text.",
        tags: PORTAL_TAGS,
        params: PropertyIdParamsSchema,
        querystring: PortalPropertyQuerySchema,
        response: { 200: PortalPropertyResponseSchema },
      },
    },
    async (request, reply) => {
      const data = await portal.getPortalProperty(
        db,
        callerOf(request),
        request.params.id,
        answerLanguage(request, reply),
      );
      // One listing: the language its text is in (the default where it lacks the one asked).
      reply.header('content-language', data.language);
      return { data };
    },
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
    async (request) => ({ data: await portal.portalFilters(db, callerOf(request)) }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/properties',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.create',
        summary: 'Create a property',
        description:
          'Admin bearer token. Required: `code`, `title`, `transactionType`, `type`, `price`, `city`. ' +
          "Defaults: ACTIVE, published on the portal, not featured, the organization's currency, 0 " +
          'bedrooms and bathrooms; with `approximateLocation` the portal shows no address or zip code and ' +
          'coordinates rounded to 2 decimals. 409 DUPLICATE when the code is taken in the organization ' +
          '(`error.existingId` names the holder), 400 for an `agentId` that is not its agent. Records ' +
          '`property.created`; send an `Idempotency-Key` to retry safely.',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        body: CreatePropertyBodySchema,
        response: { 201: AdminPropertyResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await writes.createProperty(db, callerOf(request), request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/properties',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.list',
        summary: "List an organization's properties (every status), newest first",
        description:
          'Admin bearer token. Every property of the organization, whatever its status or publication, ' +
          'newest first, in the back-office view. Filters combine with AND: `status`, `publishedOnPortal`, ' +
          '`agentId`, `code` (exact) and `q` (every word in code, title, description, city or ' +
          'neighborhood, case- and accent-insensitive). Paged (`pageSize` 20 by default, at most 100).',
        tags: ADMIN_TAGS,
        params: OrganizationIdParamsSchema,
        querystring: AdminListPropertiesQuerySchema,
        response: { 200: AdminPropertyListResponseSchema },
      },
    },
    // GET /v1/listings's service: the back office's filters are a subset of its own, in page mode.
    async (request) => pageOnly(await listListings(db, callerOf(request), request.query)),
  );

  app.get(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.get',
        summary: 'Get a property (back-office view)',
        description:
          'Admin bearer token. The back-office view, whatever the status: exact address, zip code and ' +
          'coordinates, `publishedOnPortal`, `internalNotes` and `customFields`. 404 when the organization ' +
          'is unknown or the property is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        response: { 200: AdminPropertyResponseSchema },
      },
    },
    async (request) => ({ data: await getListing(db, callerOf(request), request.params.propertyId) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.update',
        summary: 'Change a property',
        description:
          'Admin bearer token. Only the fields sent change; null clears a nullable field; `amenities`, ' +
          '`photos` and `customFields` are replaced whole. 409 DUPLICATE for a code another property has, ' +
          "400 for an `agentId` that is not the organization's. Records `property.updated` with the names " +
          'of the fields sent.',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        body: UpdatePropertyBodySchema,
        response: { 200: AdminPropertyResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const property = await writes.updateProperty(db, caller, request.params.propertyId, request.body);
      // Uploaded photos the new list left out lose their files (decision 0233).
      if (request.body.photos !== undefined) {
        await sweepListingFiles(photoFiles(config, db, request.log), caller, property.id);
      }
      return { data: property };
    },
  );

  app.delete(
    '/admin/v1/organizations/:orgId/properties/:propertyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.properties.delete',
        summary: 'Delete a property',
        description:
          'Admin bearer token. Removes the property and its visit requests; its leads, appointments and ' +
          'deals stay, with `propertyId` null. Records `property.deleted`. 404 when the organization is ' +
          'unknown or the property is not one of its.',
        tags: ADMIN_TAGS,
        params: OrgPropertyParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const deleted = await writes.deleteProperty(db, caller, request.params.propertyId);
      await sweepListingFiles(photoFiles(config, db, request.log), caller, deleted.id);
      return { data: deleted };
    },
  );
};
