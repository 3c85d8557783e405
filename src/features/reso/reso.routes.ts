import { originOf as publicOrigin } from '../../platform/http/origin.ts';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import {
  GET_OPTIONS,
  LIST_OPTIONS,
  ResoGetQuerySchema,
  ResoKeyParamsSchema,
  ResoListQuerySchema,
  ResoPropertyEntitySchema,
  ResoPropertyListSchema,
} from './reso.schema.ts';
import { getResoProperty, listResoProperties } from './reso.service.ts';

// The agency's own view, as GET /v1/listings: a replication feed for the agency's integrations.
const READ = { auth: { scope: 'listings:read', keyTypes: SECRET_KEYS, write: false } } as const;
const TAGS = ['Listings'];
const REFERENCE = 'The mapping of every field and status, and what is not supported: docs/reso.md.';

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

/** RESO Web API's Property resource (secret keys, `listings:read`). */
export const resoRoutes: FastifyPluginAsyncTypebox<AppContext> = async (app, { db, config }) => {
  const originOf = (request: FastifyRequest) => publicOrigin(request, config.publicUrl);

  app.get(
    '/v1/reso/Property',
    {
      config: READ,
      preValidation: onlyOptions(LIST_OPTIONS),
      schema: {
        operationId: 'reso.property.list',
        summary: "The agency's listings as RESO Property records (replication)",
        description:
          'Secret or read-only secret key with `listings:read`. Every listing of the organization, whatever its ' +
          'status, in RESO Data Dictionary 2.0 names (exact address and coordinates, PrivateRemarks), as an OData ' +
          'collection `{"@odata.context", "value": [...], "@odata.nextLink"?}`. Options: `$filter` on ' +
          'ModificationTimestamp and StandardStatus, `$select`, `$orderby`, `$top` (default 100, at most 1000), ' +
          '`$skip`, `$skiptoken`, `$count`. Replicate by ModificationTimestamp ascending (the default order) and ' +
          'follow `@odata.nextLink` until it is absent: a record changed during the walk comes again later with ' +
          'its new ModificationTimestamp, and no record is skipped or repeated otherwise. Any other option, field ' +
          'or operator is a 400 naming the option and what it supports. ' +
          REFERENCE,
        tags: TAGS,
        querystring: ResoListQuerySchema,
        response: { 200: ResoPropertyListSchema },
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
          "Secret or read-only secret key with `listings:read`. OData's key syntax: `Property('prop_…')` (quotes " +
          'and parentheses may be percent-encoded). `$select` as on the collection. 404 when the ListingKey is ' +
          'unknown or of another organization (one answer for both). ' +
          REFERENCE,
        tags: TAGS,
        params: ResoKeyParamsSchema,
        querystring: ResoGetQuerySchema,
        response: { 200: ResoPropertyEntitySchema },
      },
    },
    async (request) =>
      getResoProperty(db, callerOf(request), request.params.ListingKey, request.query, originOf(request)),
  );
};
