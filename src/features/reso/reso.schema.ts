// RESO Web API's Property resource (docs/reso.md): its OData query options and its answers, in RESO
// Data Dictionary 2.0 names. Every field is optional in the schema because `$select` may leave it out.
import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { DateTime, Nullable, StringEnum, ref } from '../../platform/http/schemas.ts';
import { PROPERTY_STATUSES } from '../../shared/property-vocabulary.ts';
import { RESO_FIELDS, RESO_PROPERTY_TYPES, STANDARD_STATUSES } from './reso.mapping.ts';
import { FILTER_SUPPORT } from './reso.filter.ts';
import { AMENITY_FLAGS, FURNISHED_VALUE, MULTI_LOOKUPS } from './reso.features.ts';
import { DELETE_RECORD_FIELDS } from './reso.fields.ts';

export const MAX_TOP = 1000;
export const DEFAULT_TOP = 100;
export const MAX_SKIP = 10_000;

/** The OData options of GET /v1/reso/Property; anything else is a 400 naming it. */
export const LIST_OPTIONS = [
  '$filter',
  '$select',
  '$orderby',
  '$top',
  '$skip',
  '$skiptoken',
  '$count',
  '$expand',
  '$format',
] as const;
/** The OData options of GET /v1/reso/Property('{ListingKey}'). */
export const GET_OPTIONS = ['$select', '$expand', '$format'] as const;

const expand = Type.String({
  minLength: 1,
  maxLength: 100,
  description:
    '`Media`: the photos as Media records (they are in every record unless `$select` leaves them out)',
  examples: ['Media'],
});
const format = Type.String({
  minLength: 1,
  maxLength: 100,
  description: '`json` or `application/json` (the only format of records); anything else is a 406',
});

const select = Type.String({
  minLength: 1,
  maxLength: 1000,
  description: `\`*\` or a comma-separated list of ${RESO_FIELDS.join(', ')}; an unknown field is a 400`,
  examples: ['ListingKey,ListPrice,StandardStatus,ModificationTimestamp'],
});

export const ResoListQuerySchema = Type.Object(
  {
    $filter: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description: `The records to list; ${FILTER_SUPPORT}. Anything else is a 400 naming \`$filter\`.`,
        examples: [
          "ModificationTimestamp gt 2026-11-01T00:00:00Z and StandardStatus in ('Active','Pending')",
        ],
      }),
    ),
    $select: Type.Optional(select),
    $orderby: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'ModificationTimestamp asc (the default) or desc, ties by ListingKey in the same direction; or ' +
          'ListingKey asc|desc',
        examples: ['ModificationTimestamp asc'],
      }),
    ),
    $top: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TOP,
        description: `Records per page, ${DEFAULT_TOP} by default, at most ${MAX_TOP}; @odata.nextLink follows`,
      }),
    ),
    $skip: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_SKIP,
        description: `Records to skip, at most ${MAX_SKIP}; deeper, follow @odata.nextLink. Not with $skiptoken`,
      }),
    ),
    $skiptoken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 300,
        pattern: '^[A-Za-z0-9_-]+$',
        description: 'Opaque: the one in @odata.nextLink, sent with the same $filter and $orderby',
        examples: [
          'cjF8MjAyNi0xMS0yN1QxMDoxNTowMC4xMjM0NTZafHByb3BfMFZoSjNrUTJadDhtWDFwUjRzVDZ1RXxzQ2gzazlQcTJ4TDBtWjd2',
        ],
      }),
    ),
    $count: Type.Optional(
      Type.Boolean({ description: 'true: @odata.count, the records $filter matches (exact up to 10,000)' }),
    ),
    $expand: Type.Optional(expand),
    $format: Type.Optional(format),
  },
  { additionalProperties: false },
);
export type ResoListQuery = Static<typeof ResoListQuerySchema>;

export const ResoGetQuerySchema = Type.Object(
  { $select: Type.Optional(select), $expand: Type.Optional(expand), $format: Type.Optional(format) },
  { additionalProperties: false },
);
export type ResoGetQuery = Static<typeof ResoGetQuerySchema>;

export const ResoKeyParamsSchema = Type.Object(
  { ListingKey: Type.String({ maxLength: 64, description: 'The listing’s ListingKey (its prop_… id)' }) },
  { additionalProperties: false },
);

export const ResoMediaSchema = Type.Object(
  {
    MediaKey: Type.String({
      description:
        "The uploaded photo's id, or for a photo given by URL a key derived from the listing and the URL",
    }),
    ResourceName: StringEnum(['Property'] as const),
    ResourceRecordKey: Type.String({ description: 'The ListingKey of the listing' }),
    MediaCategory: StringEnum(['Photo'] as const),
    MediaURL: Type.String(),
    Order: Type.Integer({ minimum: 1, description: 'Its place among the photos, from 1' }),
    ShortDescription: Nullable(Type.String({ description: 'The caption' })),
    LongDescription: Nullable(Type.String({ description: 'The alt text, when it has one' })),
    ImageWidth: Nullable(Type.Integer({ description: 'Uploaded photos: the width in pixels' })),
    ImageHeight: Nullable(Type.Integer({ description: 'Uploaded photos: the height in pixels' })),
    ModificationTimestamp: DateTime({ description: "The listing's: it changes whenever the photos do" }),
  },
  { $id: 'ResoMedia', additionalProperties: false, description: 'A photo (RESO Media)' },
);

const EXAMPLE = {
  ListingKey: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE',
  ListingId: 'MAL-0042',
  StandardStatus: 'Active',
  MlsStatus: 'ACTIVE',
  PropertyType: 'Residential',
  PropertySubType: 'Condominium',
  LeaseConsideredYN: false,
  ListPrice: 310000,
  PreviousListPrice: 325000,
  ListPriceCurrency: 'EUR',
  BedroomsTotal: 3,
  BathroomsTotalInteger: 2,
  LivingArea: 95,
  LivingAreaUnits: 'Square Meters',
  UnparsedAddress: 'Calle Larios 12, 3ºB',
  PostalCode: '29005',
  City: 'Málaga',
  SubdivisionName: 'Centro',
  Latitude: 36.7196,
  Longitude: -4.4214,
  PublicRemarks: 'Bright three-bedroom flat with a sea view, two minutes from the beach.',
  PrivateRemarks: 'Owner prefers visits in the morning',
  ListAgentKey: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE',
  InternetEntireListingDisplayYN: true,
  InternetAddressDisplayYN: true,
  OnMarketDate: '2026-10-02',
  View: ['Ocean'],
  ExteriorFeatures: ['Balcony'],
  PatioAndPorchFeatures: [],
  PetsAllowed: [],
  Furnished: null,
  CoolingYN: true,
  HeatingYN: null,
  FireplaceYN: null,
  PhotosCount: 1,
  Media: [
    {
      MediaKey: 'med_3f1c9a0b7d2e4f6a8b9c0d1e',
      ResourceName: 'Property',
      ResourceRecordKey: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uE',
      MediaCategory: 'Photo',
      MediaURL: 'https://images.example.com/mal-0042/1.jpg',
      Order: 1,
      ShortDescription: 'Living room',
      LongDescription: null,
      ImageWidth: null,
      ImageHeight: null,
      ModificationTimestamp: '2026-11-27T10:15:00.123456Z',
    },
  ],
  OriginalEntryTimestamp: '2026-10-02T08:30:00.000000Z',
  ModificationTimestamp: '2026-11-27T10:15:00.123456Z',
};

/** A multi-valued lookup: the DD values our amenities give it (reso.features.ts). */
function lookupList(field: string, values: Record<string, string>) {
  const given = Object.entries(values).map(([amenity, value]) => `${value} (amenity ${amenity})`);
  return Type.Array(StringEnum(Object.values(values) as [string, ...string[]]), {
    uniqueItems: true,
    description: `DD 2.0's ${field} lookup, from the amenities: ${given.join(', ')}; empty when none`,
  });
}

const amenityFlag = (amenity: string) =>
  Nullable(Type.Literal(true, { description: `true with the amenity ${amenity}, else null (not said)` }));

const resoFields = {
  ListingKey: Type.String({ description: 'Our id (prop_…)' }),
  ListingId: Type.String({ description: "The agency's reference (code)" }),
  StandardStatus: StringEnum(STANDARD_STATUSES, {
    description:
      'RESO status: docs/reso.md has the mapping; Delete for a deleted listing (its other fields null)',
  }),
  MlsStatus: StringEnum(PROPERTY_STATUSES, { description: 'Our own status' }),
  PropertyType: StringEnum(RESO_PROPERTY_TYPES, { description: 'From our type and transaction type' }),
  PropertySubType: Nullable(Type.String({ description: 'RESO PropertySubType lookup value, or null' })),
  LeaseConsideredYN: Nullable(
    Type.Boolean({ description: 'true for SALE_OR_RENT, false for SALE, null for a lease' }),
  ),
  ListPrice: Type.Number({ description: 'The price (the monthly rent of a lease)' }),
  PreviousListPrice: Nullable(Type.Number({ description: 'The price before the last reduction, or null' })),
  ListPriceCurrency: Type.String({ description: 'Local field (DD 2.0 has none): ISO 4217 currency' }),
  BedroomsTotal: Type.Integer(),
  BathroomsTotalInteger: Type.Integer(),
  LivingArea: Nullable(Type.Number()),
  LivingAreaUnits: Nullable(StringEnum(['Square Meters'] as const)),
  UnparsedAddress: Nullable(Type.String({ description: 'The exact address' })),
  PostalCode: Nullable(Type.String()),
  City: Type.String(),
  SubdivisionName: Nullable(Type.String({ description: 'The neighborhood' })),
  Latitude: Nullable(Type.Number({ description: 'Exact' })),
  Longitude: Nullable(Type.Number({ description: 'Exact' })),
  PublicRemarks: Nullable(Type.String({ description: 'The description' })),
  PrivateRemarks: Nullable(Type.String({ description: 'The internal notes' })),
  ListAgentKey: Nullable(Type.String({ description: 'The agent (agt_…)' })),
  InternetEntireListingDisplayYN: Type.Boolean({ description: 'publishedOnPortal' }),
  InternetAddressDisplayYN: Type.Boolean({
    description: 'addressVisibility is EXACT: the portal shows the whole address (STREET: the street only)',
  }),
  OnMarketDate: Nullable(
    Type.String({
      format: 'date',
      description: "The day it first went ACTIVE, in the organization's time zone (YYYY-MM-DD), or null",
    }),
  ),
  View: lookupList('View', MULTI_LOOKUPS.View),
  ExteriorFeatures: lookupList('ExteriorFeatures', MULTI_LOOKUPS.ExteriorFeatures),
  PatioAndPorchFeatures: lookupList('PatioAndPorchFeatures', MULTI_LOOKUPS.PatioAndPorchFeatures),
  PetsAllowed: lookupList('PetsAllowed', MULTI_LOOKUPS.PetsAllowed),
  Furnished: Nullable(
    StringEnum([FURNISHED_VALUE] as const, { description: 'amenity furnished, else null' }),
  ),
  CoolingYN: amenityFlag(AMENITY_FLAGS.CoolingYN),
  HeatingYN: amenityFlag(AMENITY_FLAGS.HeatingYN),
  FireplaceYN: amenityFlag(AMENITY_FLAGS.FireplaceYN),
  PhotosCount: Type.Integer({ minimum: 0 }),
  Media: Type.Array(ref(ResoMediaSchema)),
  OriginalEntryTimestamp: DateTime({ description: 'Created, to the microsecond' }),
  ModificationTimestamp: DateTime({ description: 'Last changed, to the microsecond (the replication key)' }),
};

/** The fields a Delete record (a deleted listing) has; it has Media too, empty. */
type KeptInDeleteRecords = (typeof DELETE_RECORD_FIELDS)[number] | 'Media';

/**
 * Every field a Delete record (reso.deletions.ts) has not is null there: nullable in the answer's
 * schema, whatever it is in a listing (the serializer would otherwise turn the null into 0 or '').
 */
function nullableInDeleteRecords<T extends Record<string, TSchema>>(fields: T) {
  const kept: readonly string[] = [...DELETE_RECORD_FIELDS, 'Media'];
  const isNullable = (schema: TSchema) =>
    'anyOf' in schema &&
    (schema.anyOf as TSchema[]).some((member) => 'type' in member && member.type === 'null');
  // The description on the union too, where OpenAPI readers look for it.
  const orNull = (schema: TSchema) =>
    Type.Union([schema, Type.Null()], { description: (schema as { description?: string }).description });
  return Object.fromEntries(
    Object.entries(fields).map(([name, schema]) => [
      name,
      kept.includes(name) || isNullable(schema) ? schema : orNull(schema),
    ]),
  ) as { [K in keyof T]: K extends KeptInDeleteRecords ? T[K] : ReturnType<typeof Nullable<T[K]>> };
}

const optional = Type.Partial(Type.Object(nullableInDeleteRecords(resoFields))).properties;

export const ResoPropertySchema = Type.Object(optional, {
  $id: 'ResoProperty',
  additionalProperties: false,
  description: 'A listing in RESO Data Dictionary 2.0 names (the fields `$select` asked for, or all)',
  examples: [EXAMPLE],
});

const CONTEXT = 'https://api.example.com/v1/reso/$metadata#Property';

export const ResoPropertyListSchema = Type.Object(
  {
    '@odata.context': Type.String({ description: 'The OData context URL of the answer' }),
    '@odata.count': Type.Optional(
      Type.Integer({ description: '$count=true: the records $filter matches, exact up to 10,000' }),
    ),
    '@agencyCrm.countIsLowerBound': Type.Optional(
      Type.Literal(true, { description: 'Present past 10,000 matches: @odata.count is then a lower bound' }),
    ),
    value: Type.Array(ref(ResoPropertySchema)),
    '@odata.nextLink': Type.Optional(
      Type.String({ description: 'The next page, when there is one: follow it as received' }),
    ),
  },
  {
    additionalProperties: false,
    description: 'One page of Property records',
    examples: [
      {
        '@odata.context': CONTEXT,
        value: [EXAMPLE],
        '@odata.nextLink':
          'https://api.example.com/v1/reso/Property?$top=1&$skiptoken=cjF8MjAyNi0xMS0yN1QxMDoxNTowMC4xMjM0NTZafHByb3BfMFZoSjNrUTJadDhtWDFwUjRzVDZ1RXxzQ2gzazlQcTJ4TDBtWjd2',
      },
    ],
  },
);
export type ResoPropertyList = Static<typeof ResoPropertyListSchema>;

export const ResoPropertyEntitySchema = Type.Object(
  { '@odata.context': Type.String({ description: 'The OData context URL of the answer' }), ...optional },
  {
    additionalProperties: false,
    description: 'One Property record',
    examples: [{ '@odata.context': `${CONTEXT}/$entity`, ...EXAMPLE }],
  },
);
export type ResoPropertyEntity = Static<typeof ResoPropertyEntitySchema>;

export const resoSchemas = [ResoMediaSchema, ResoPropertySchema];
