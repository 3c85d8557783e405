import { originOf as publicOrigin } from '../../platform/http/origin.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import {
  RESO_ERRORS,
  RESO_METADATA_RESPONSE,
  ResoFormatQuerySchema,
  ResoMediaListSchema,
  ResoMetadataQuerySchema,
  ResoServiceDocumentSchema,
  odataErrors,
} from './reso.documents.schema.ts';
import { metadataDocument, serviceDocument } from './reso.metadata.ts';
import { registerLookupRoutes } from './reso.lookups.routes.ts';
import { registerOData } from './reso.protocol.ts';
import {
  GET_OPTIONS,
  LIST_OPTIONS,
  ResoGetQuerySchema,
  ResoKeyParamsSchema,
  ResoListQuerySchema,
  ResoPropertyEntitySchema,
  ResoPropertyListSchema,
} from './reso.schema.ts';
import { getResoMedia, getResoProperty, listResoProperties } from './reso.service.ts';

// The agency's own view, as GET /v1/listings: a replication feed for the agency's integrations. RESO
// clients speak OAuth2: the key is also taken as a bearer token (decision 0258).
const READ = {
  auth: { scope: 'listings:read', keyTypes: SECRET_KEYS, write: false, alsoBearer: true },
} as const;
const TAGS = ['Listings'];
const REFERENCE = 'The mapping of every field and status, and what is not supported: docs/reso.md.';
const KEY =
  'The key in X-API-Key or as `Authorization: Bearer <key>` (secret or read-only secret, `listings:read`).';
const METADATA = '/v1/reso/$metadata';

/**
 * Before validation: an OData option (or any parameter) this resource does not take is a 400 that says
 * which it does take, rather than the schema's bare "is not allowed".
 */
function onlyOptions(supported: readonly string[]) {
  return async (request: FastifyRequest) => {
    for (const name of Object.keys(request.query as object)) {
      if (!supported.includes(name)) {
        throw Errors.invalidField(
          `query.${name}`,
          `is not supported: this resource takes ${supported.join(', ')} (docs/reso.md)`,
        );
      }
    }
  };
}

/**
 * OData's key syntax `Property('prop_…')`: the router has no literal `')` after a parameter, so the
 * parameter it reads holds the rest of the segment (`prop_…')`, under the name `ListingKey')`). This
 * puts back the key alone, OData's doubled quotes undone, as `ListingKey`; without the closing `')` it
 * is no key (404 below).
 */
async function odataKey(request: FastifyRequest) {
  const raw = Object.values(request.params as Record<string, string>)[0] ?? '';
  const key = raw.endsWith("')") ? raw.slice(0, -2).replaceAll("''", "'") : '';
  (request as { params: unknown }).params = { ListingKey: key };
}

/** RESO Web API: the service and metadata documents, Property and its Media (secret keys, `listings:read`). */
export const resoRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, config }) => {
  const originOf = (request: FastifyRequest) => publicOrigin(request, config.publicUrl);
  registerOData(app, (url) => (url === METADATA ? 'application/xml' : 'application/json'));

  const serviceRoot = {
    config: READ,
    preValidation: onlyOptions([]),
    schema: {
      operationId: 'reso.service.get',
      summary: 'The RESO service document',
      description: `${KEY} The OData service document: the entity sets this service serves (Property, Lookup). ${REFERENCE}`,
      tags: TAGS,
      response: { 200: ResoServiceDocumentSchema, ...odataErrors(RESO_ERRORS) },
    },
  };
  app.get('/v1/reso', serviceRoot, async (request) => serviceDocument(originOf(request)));
  registerLookupRoutes(app, READ, originOf);
  // OData's service root URL ends in a slash; both answer, the document lists one.
  app.get('/v1/reso/', { ...serviceRoot, schema: { ...serviceRoot.schema, hide: true } }, async (request) =>
    serviceDocument(originOf(request)),
  );

  app.get(
    METADATA,
    {
      config: READ,
      preValidation: onlyOptions(['$format']),
      schema: {
        operationId: 'reso.metadata.get',
        summary: 'The RESO metadata document (OData CSDL XML)',
        description:
          `${KEY} The CSDL XML document (EDMX 4.0) of the Property and Media entity types, built from the same ` +
          "field mapping as the records: each field with its type, lookups as `Edm.String` with RESO's " +
          '`LookupName` annotation, Media as a contained navigation property of Property. `application/xml` ' +
          `only: \`$format\` or \`Accept\` that excludes it is a 406. ${REFERENCE}`,
        tags: TAGS,
        querystring: ResoMetadataQuerySchema,
        response: { 200: RESO_METADATA_RESPONSE, ...odataErrors(RESO_ERRORS) },
      },
    },
    async (_request, reply) => reply.type('application/xml; charset=utf-8').send(metadataDocument()),
  );

  app.get(
    '/v1/reso/Property',
    {
      config: READ,
      preValidation: onlyOptions(LIST_OPTIONS),
      schema: {
        operationId: 'reso.property.list',
        summary: "The agency's listings as RESO Property records (replication)",
        description:
          `${KEY} Every listing of the organization, whatever its ` +
          'status, in RESO Data Dictionary 2.0 names (exact address and coordinates, PrivateRemarks), as an OData ' +
          'collection `{"@odata.context", "value": [...], "@odata.nextLink"?}`. Options: `$filter` on every field by its type in $metadata, ' +
          '`$select`, `$expand=Media`, `$orderby`, `$top` (default 100, at most 1000), `$skip`, `$skiptoken`, ' +
          '`$count`. Replicate by ModificationTimestamp ascending (the default order) and ' +
          'follow `@odata.nextLink` until it is absent: a record changed during the walk comes again later with ' +
          'its new ModificationTimestamp, and no record is skipped or repeated otherwise. Any other option, field ' +
          'or operator is a 400 naming the option and what it supports. ' +
          REFERENCE,
        tags: TAGS,
        querystring: ResoListQuerySchema,
        response: { 200: ResoPropertyListSchema, ...odataErrors(RESO_ERRORS) },
      },
    },
    async (request) => listResoProperties(db, callerOf(request), request.query, originOf(request)),
  );

  app.get(
    "/v1/reso/Property(':ListingKey')",
    {
      config: READ,
      preValidation: [odataKey, onlyOptions(GET_OPTIONS)],
      schema: {
        operationId: 'reso.property.get',
        summary: 'One listing as a RESO Property record',
        description:
          `${KEY} OData's key syntax: \`Property('prop_…')\` (quotes ` +
          'and parentheses may be percent-encoded). `$select` and `$expand` as on the collection. 404 when the ' +
          'ListingKey is unknown or of another organization (one answer for both). ' +
          REFERENCE,
        tags: TAGS,
        params: ResoKeyParamsSchema,
        querystring: ResoGetQuerySchema,
        response: { 200: ResoPropertyEntitySchema, ...odataErrors([...RESO_ERRORS, 404]) },
      },
    },
    async (request) =>
      getResoProperty(db, callerOf(request), request.params.ListingKey, request.query, originOf(request)),
  );

  app.get(
    "/v1/reso/Property(':ListingKey')/Media",
    {
      config: READ,
      preValidation: [odataKey, onlyOptions(['$format'])],
      schema: {
        operationId: 'reso.property.media',
        summary: "One listing's photos as RESO Media records",
        description:
          `${KEY} The Media navigation property of one Property: its photos in their order, each with a ` +
          "stable MediaKey, ResourceRecordKey (the ListingKey) and the listing's ModificationTimestamp. 404 " +
          'when the ListingKey is unknown or of another organization. ' +
          REFERENCE,
        tags: TAGS,
        params: ResoKeyParamsSchema,
        querystring: ResoFormatQuerySchema,
        response: { 200: ResoMediaListSchema, ...odataErrors([...RESO_ERRORS, 404]) },
      },
    },
    async (request) => getResoMedia(db, callerOf(request), request.params.ListingKey, originOf(request)),
  );

  // Any other path under /v1/reso (`Member`, `Property('…')/Foo`) is no resource of this service: once the
  // key is admitted, an OData 404 with OData-Version, as the routes above answer. Every resource is a route
  // of its own, which the router prefers to this catch-all, so a new entity set needs nothing here.
  app.get(
    '/v1/reso/*',
    { config: READ, schema: { operationId: 'reso.unknown', hide: true } },
    async (request) => {
      throw Errors.routeNotFound(request.method, request.url.split('?')[0] ?? request.url);
    },
  );
};
