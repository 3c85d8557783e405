// GET /v1/reso/Lookup (reso.lookups.ts): registered inside the RESO plugin, under its OData protocol.
import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Errors } from '../../platform/errors/errors.ts';
import { DateTime, Nullable, ref } from '../../platform/http/schemas.ts';
import { RESO_ERRORS, odataErrors } from './reso.documents.schema.ts';
import { LOOKUP_FIELDS, LOOKUP_OPTIONS, LOOKUPS, listLookups } from './reso.lookups.ts';

export const ResoLookupSchema = Type.Object(
  Type.Partial(
    Type.Object({
      LookupKey: Type.String({
        description: 'LookupName and LegacyODataValue: StandardStatus.ActiveUnderContract',
      }),
      LookupName: Type.String({
        description: 'The lookup (the LookupName annotation of the fields using it)',
      }),
      LookupValue: Type.String({ description: 'The value as records and $filter give it' }),
      StandardLookupValue: Nullable(Type.String({ description: "DD 2.0's display name of the value" })),
      LegacyODataValue: Nullable(
        Type.String({ description: "The enum member form, for $filter's enum literals" }),
      ),
      ModificationTimestamp: DateTime({ description: 'When the lookup values last changed' }),
    }),
  ).properties,
  {
    $id: 'ResoLookup',
    additionalProperties: false,
    description: 'A value a lookup field takes (RESO Lookup resource)',
    examples: [LOOKUPS[0]],
  },
);

const ResoLookupListSchema = Type.Object(
  {
    '@odata.context': Type.String({ description: 'The OData context URL of the answer' }),
    '@odata.count': Type.Optional(Type.Integer({ description: '$count=true: how many there are' })),
    value: Type.Array(ref(ResoLookupSchema)),
    '@odata.nextLink': Type.Optional(Type.String({ description: 'The next page, when $top cut this one' })),
  },
  { additionalProperties: false, description: 'The lookup values, by LookupName' },
);

const LookupQuerySchema = Type.Object(
  {
    $select: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: `\`*\` or some of ${LOOKUP_FIELDS.join(', ')}`,
      }),
    ),
    $top: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1000, description: 'Records per page (all by default)' }),
    ),
    $skip: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000, description: 'Records to skip' })),
    $count: Type.Optional(Type.Boolean({ description: 'true: @odata.count' })),
    $format: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: '`json` or `application/json`; else a 406' }),
    ),
  },
  { additionalProperties: false },
);

/** GET /v1/reso/Lookup, with the RESO plugin's credential (`read`) and origin. */
export function registerLookupRoutes(
  app: FastifyInstance,
  read: object,
  originOf: (request: FastifyRequest) => string,
) {
  app.get<{ Querystring: Static<typeof LookupQuerySchema> }>(
    '/v1/reso/Lookup',
    {
      config: read,
      preValidation: async (request) => {
        for (const name of Object.keys(request.query as object)) {
          if (!(LOOKUP_OPTIONS as readonly string[]).includes(name)) {
            throw Errors.invalidField(
              `query.${name}`,
              `is not supported: Lookup takes ${LOOKUP_OPTIONS.join(', ')} (a few dozen records: read it whole)`,
            );
          }
        }
      },
      schema: {
        operationId: 'reso.lookup.list',
        summary: 'The values of every RESO lookup field (RESO Lookup resource)',
        description:
          'The key in X-API-Key or as `Authorization: Bearer <key>` (secret or read-only secret, ' +
          '`listings:read`). One record per value a lookup field (StandardStatus, PropertyType, View…) ' +
          'takes in our records, with its LookupName (the annotation on the field in $metadata), the value, ' +
          "DD 2.0's display name and the enum member form. The same for every organization. Options: " +
          '`$select`, `$top`, `$skip`, `$count`. docs/reso.md.',
        tags: ['Listings'],
        querystring: LookupQuerySchema,
        response: { 200: ResoLookupListSchema, ...odataErrors(RESO_ERRORS) },
      },
    },
    async (request) => listLookups(request.query, originOf(request)),
  );
}
