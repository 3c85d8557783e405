import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { CURSOR_MODE_DESCRIPTION, PageQuerySchema } from '../../platform/http/pagination.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import type { StorageSettings } from '../../platform/storage/open-storage.ts';
import { DeletedResponseSchema, ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import { getListing, listingHistory, listListings } from './properties.listings.ts';
import {
  ListingListQuerySchema,
  ListingListResponseSchema,
  ListingResponseSchema,
  PropertyChangeListResponseSchema,
} from './properties.listings.schema.ts';
import { STATUS_MOVES } from './properties.lifecycle.ts';
import {
  CreatePropertyBodySchema,
  PropertyIdParamsSchema,
  UpdatePropertyBodySchema,
} from './properties.schema.ts';
import { photoFiles, sweepListingFiles } from './properties.photos.ts';
import * as writes from './properties.writes.ts';

const READ = { auth: { scope: 'listings:read', keyTypes: SECRET_KEYS, write: false } } as const;
// Writing listings is support-approved and needs access level 3, like contacts and deals (decision 0230).
const WRITE = {
  auth: { scope: 'listings:write', keyTypes: ['secret'], write: true, accessLevel: 3 },
} as const;
const TAGS = ['Listings'];
const CONFLICT = { 409: ref(ErrorResponseSchema) };

const MOVES = Object.entries(STATUS_MOVES)
  .map(([from, to]) => `${from} → ${to.length === 0 ? '(final)' : to.join(', ')}`)
  .join('; ');
const LIFECYCLE =
  `Status moves allowed: ${MOVES} (staying put is always allowed). Any other move is a 409 CONFLICT with ` +
  '`error.reason` ILLEGAL_STATUS_MOVE and `error.allowed`; SOLD needs a SALE or SALE_OR_RENT property and RENTED ' +
  'a RENT or SALE_OR_RENT one (409, reason STATUS_NOT_ALLOWED). The portal shows exactly the ACTIVE listings ' +
  'with `publishedOnPortal`.';

/** The agency's own listings through v1 (secret keys): every status, the back-office view, the history. */
export const listingsRoutes: FastifyPluginAsyncTypebox<{ db: Database; config: StorageSettings }> = async (
  app,
  { db, config },
) => {
  app.get(
    '/v1/listings',
    {
      config: READ,
      schema: {
        operationId: 'listings.list',
        summary: "Search the agency's listings (every status)",
        description:
          'Secret or read-only secret key with `listings:read`. Every listing of the organization, whatever its ' +
          'status or publication, in the back-office view (exact address, `internalNotes`, `customFields`), newest ' +
          "first. Filters combine with AND: the portal's own (`neighborhood`, `bathroomsMin`, `areaMin`/`areaMax`, " +
          'the amenity flags `hasPool=1`…, `bounds`, `near` and `radiusKm`, on the exact coordinates here) and the ' +
          "agency's (`status`, `publishedOnPortal`, `agentId`, `code`, ...); `transactionType` is exact. " +
          CURSOR_MODE_DESCRIPTION,
        tags: TAGS,
        querystring: ListingListQuerySchema,
        response: { 200: ListingListResponseSchema },
      },
    },
    async (request) => listListings(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/listings/:id',
    {
      config: READ,
      schema: {
        operationId: 'listings.get',
        summary: 'One listing',
        description:
          'Secret or read-only secret key with `listings:read`. The back-office view, whatever the status. 404 ' +
          'when the id is malformed, unknown or of another organization (one answer for all three).',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        response: { 200: ListingResponseSchema },
      },
    },
    async (request) => ({ data: await getListing(db, callerOf(request), request.params.id) }),
  );

  app.get(
    '/v1/listings/:id/history',
    {
      config: READ,
      schema: {
        operationId: 'listings.history',
        summary: "A listing's price and status changes",
        description:
          'Secret or read-only secret key with `listings:read`. Every price change (with its currency) and status ' +
          'change, oldest first, each with who made it (`actor.kind` SYSTEM for the back office and imports, API ' +
          'for a key); the first entries, with null previous values, are its creation. Kept since the listing ' +
          'API exists (listings older than that start at their first change). 404 as for the listing.',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: PropertyChangeListResponseSchema },
      },
    },
    async (request) => listingHistory(db, callerOf(request), request.params.id, request.query),
  );

  app.post(
    '/v1/listings',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.create',
        summary: 'Create a listing',
        description:
          'Secret key with `listings:write`, access level 3. Required: `code`, `title`, `transactionType`, `type`, ' +
          "`price`, `city`. Defaults: ACTIVE, published on the portal, not featured, the organization's currency; " +
          'DRAFT keeps it off the portal until it is ready. 409 DUPLICATE when the code is taken (`error.existingId`), ' +
          "400 for an `agentId` that is not the organization's, 409 for SOLD/RENTED on the wrong transaction type. " +
          'Records `property.created` (actor API) and the first history entries. Send an `Idempotency-Key` to ' +
          'retry safely.',
        tags: TAGS,
        body: CreatePropertyBodySchema,
        response: { 201: ListingResponseSchema, ...CONFLICT },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await writes.createProperty(db, callerOf(request), request.body) }),
  );

  app.patch(
    '/v1/listings/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.update',
        summary: 'Change a listing',
        description:
          'Secret key with `listings:write`, access level 3. Only the fields sent change; null clears a nullable ' +
          'field; `amenities`, `photos` and `customFields` are replaced whole. ' +
          LIFECYCLE +
          ' Records `property.updated` naming the fields sent, `property.price_changed` when the price or currency ' +
          'changed and `property.status_changed` when the status did (actor API), with their history entries, in ' +
          'the same transaction. 404 for an id of another organization; 409 DUPLICATE for a code another listing has.',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        body: UpdatePropertyBodySchema,
        response: { 200: ListingResponseSchema, ...CONFLICT },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const listing = await writes.updateProperty(db, caller, request.params.id, request.body);
      // Uploaded photos the new list left out lose their files (decision 0233).
      if (request.body.photos !== undefined) {
        await sweepListingFiles(photoFiles(config, db, request.log), caller, listing.id);
      }
      return { data: listing };
    },
  );

  app.delete(
    '/v1/listings/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'listings.delete',
        summary: 'Delete a listing',
        description:
          'Secret key with `listings:write`, access level 3. Removes the listing, its history and its visit ' +
          'requests; its leads, appointments and deals stay, with `propertyId` null. Records `property.deleted` ' +
          '(and `property.removed` if it was on the portal), actor API. 404 for an id of another organization. ' +
          'To take a listing off the market and keep it, move it to INACTIVE instead.',
        tags: TAGS,
        params: PropertyIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const deleted = await writes.deleteProperty(db, caller, request.params.id);
      await sweepListingFiles(photoFiles(config, db, request.log), caller, deleted.id);
      return { data: deleted };
    },
  );
};
