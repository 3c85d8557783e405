// The schemas of the RESO service's own documents: the service document, $metadata (XML), a
// listing's Media collection, and OData's error format, which every RESO route answers failures in.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { StringEnum, ref } from '../../platform/http/schemas.ts';
import { ResoMediaSchema } from './reso.schema.ts';

const ODataErrorDetailSchema = Type.Object(
  {
    code: Type.String({ description: 'The same code as the error' }),
    target: Type.String({
      description: 'The option, header or path part at fault ($filter, OData-Version…)',
    }),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ResoODataErrorSchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String({ description: "The service's stable code (VALIDATION_ERROR, UNAUTHORIZED…)" }),
        message: Type.String(),
        target: Type.Optional(Type.String({ description: 'What is at fault, when one thing is' })),
        details: Type.Array(ODataErrorDetailSchema),
        requestId: Type.String({ description: 'The request id, as in X-Request-Id' }),
      },
      { additionalProperties: true },
    ),
  },
  {
    $id: 'ResoODataError',
    additionalProperties: false,
    description: "OData's JSON error format (OData JSON 4.0 §21), with the service's requestId",
    examples: [
      {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'query.$filter Foo is not a field of Property; supported: …',
          target: '$filter',
          details: [
            {
              code: 'VALIDATION_ERROR',
              target: '$filter',
              message: 'Foo is not a field of Property; supported: …',
            },
          ],
          requestId: 'req_0VhJ3kQ2Zt8mX1pR4sT6uE',
        },
      },
    ],
  },
);

/** The failures of a RESO route, each in OData's format (the conventions add none over these). */
export function odataErrors(statuses: readonly number[]) {
  return Object.fromEntries(statuses.map((status) => [status, ref(ResoODataErrorSchema)]));
}
/** What every keyed RESO route can answer besides its success. */
export const RESO_ERRORS = [400, 401, 403, 406, 429, 500, 503] as const;

export const ResoServiceDocumentSchema = Type.Object(
  {
    '@odata.context': Type.String({ description: 'The metadata document' }),
    value: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          kind: StringEnum(['EntitySet'] as const),
          url: Type.String({ description: 'Relative to the service root' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  {
    additionalProperties: false,
    description: 'The OData service document: the entity sets of the service',
    examples: [
      {
        '@odata.context': 'https://api.example.com/v1/reso/$metadata',
        value: [
          { name: 'Property', kind: 'EntitySet', url: 'Property' },
          { name: 'Lookup', kind: 'EntitySet', url: 'Lookup' },
        ],
      },
    ],
  },
);
export type ResoServiceDocument = Static<typeof ResoServiceDocumentSchema>;

export const ResoMetadataQuerySchema = Type.Object(
  {
    $format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: '`xml` or `application/xml` (the default, and the only format); anything else is a 406',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ResoFormatQuerySchema = Type.Object(
  {
    $format: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: '`json` or `application/json` (the only format); anything else is a 406',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The $metadata answer, for the OpenAPI document: a CSDL XML document. */
export const RESO_METADATA_RESPONSE = {
  description: 'The CSDL XML document (EDMX 4.0) of the service',
  content: {
    'application/xml': {
      schema: {
        type: 'string',
        description:
          'OData CSDL XML 4.0: the Property, Media and Lookup entity types, the Property and Lookup entity sets',
      },
    },
  },
};

export const ResoMediaListSchema = Type.Object(
  {
    '@odata.context': Type.String({ description: 'The OData context URL of the answer' }),
    value: Type.Array(ref(ResoMediaSchema)),
  },
  { additionalProperties: false, description: "A listing's photos as RESO Media records" },
);
export type ResoMediaList = Static<typeof ResoMediaListSchema>;
