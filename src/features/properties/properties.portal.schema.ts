// The portal's search (GET /v1/properties, /v1/properties/featured, /v1/properties/{id}, /v1/filters):
// the filters, sorts and `lang` it takes, and the facets it offers. The property views it answers with
// are in properties.schema.ts.
import { Type, type Static } from '@fastify/type-provider-typebox';
import { pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import { DataOf, StringEnum, ref } from '../../platform/http/schemas.ts';
import { LANGUAGE_PATTERN } from '../../platform/http/languages.ts';
import {
  AMENITIES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
  type Amenity,
} from '../../shared/property-vocabulary.ts';

/** `hasPetFriendly`, `hasPool`, ... */
export const amenityFlag = (amenity: Amenity) => `has${amenity[0]?.toUpperCase()}${amenity.slice(1)}`;

export const PORTAL_MAX_PAGE_SIZE = 48;

/** `lang`: the language a portal answer is asked in (over Accept-Language); Content-Language names the one served. */
const langQuery = {
  lang: Type.Optional(
    Type.String({
      pattern: LANGUAGE_PATTERN,
      description:
        "ISO 639-1. Title and description in this language where the organization serves it and the listing has it, else in the organization's default; without it, Accept-Language decides. Content-Language names the language served",
    }),
  ),
};
const FLAG = StringEnum(['1', 'true', '0', 'false'], {
  description: '`1` (or `true`) keeps only properties with the amenity; `0`/`false` or absent: no filter',
});

export const PortalListQuerySchema = Type.Object(
  {
    ...pageQuery({ maxPageSize: PORTAL_MAX_PAGE_SIZE, defaultPageSize: 12 }),
    transactionType: Type.Optional(
      StringEnum(TRANSACTION_TYPES, {
        description: 'SALE and RENT also match SALE_OR_RENT properties; SALE_OR_RENT matches only those',
      }),
    ),
    type: Type.Optional(StringEnum(PROPERTY_TYPES)),
    city: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Case- and accent-insensitive substring' }),
    ),
    neighborhood: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Case- and accent-insensitive substring' }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 200,
        description:
          'Text search over code, title, description, city and neighborhood (every word must match)',
      }),
    ),
    priceMin: Type.Optional(Type.Number({ minimum: 0 })),
    priceMax: Type.Optional(Type.Number({ minimum: 0 })),
    bedroomsMin: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    bathroomsMin: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    areaMin: Type.Optional(Type.Number({ minimum: 0 })),
    areaMax: Type.Optional(Type.Number({ minimum: 0 })),
    featured: Type.Optional(Type.Boolean()),
    bounds: Type.Optional(
      Type.String({
        pattern: '^-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?$',
        description: 'Map viewport `south,west,north,east` in degrees',
      }),
    ),
    near: Type.Optional(
      Type.String({ pattern: '^-?\\d+(\\.\\d+)?,-?\\d+(\\.\\d+)?$', description: '`latitude,longitude`' }),
    ),
    radiusKm: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, maximum: 500, description: 'With `near`; default 10' }),
    ),
    ...Object.fromEntries(AMENITIES.map((amenity) => [amenityFlag(amenity), Type.Optional(FLAG)])),
    sortBy: Type.Optional(
      StringEnum(['price', 'createdAt', 'area', 'distance'] as const, {
        description: 'Default createdAt; `distance` needs `near`',
      }),
    ),
    sortOrder: Type.Optional(
      StringEnum(['asc', 'desc'] as const, { description: 'Default desc for createdAt, asc otherwise' }),
    ),
    ...langQuery,
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type PortalListQuery = Static<typeof PortalListQuerySchema> & Partial<Record<string, string>>;

export const FeaturedQuerySchema = Type.Object(
  { ...pageQuery({ maxPageSize: PORTAL_MAX_PAGE_SIZE, defaultPageSize: 12 }), ...langQuery },
  { additionalProperties: false },
);

export const PortalPropertyQuerySchema = Type.Object({ ...langQuery }, { additionalProperties: false });

const Count = <T extends ReturnType<typeof Type.String>>(value: T) =>
  Type.Object({ value, count: Type.Integer() }, { additionalProperties: false });

export const PortalFiltersSchema = Type.Object(
  {
    total: Type.Integer({ description: 'Published properties' }),
    transactionTypes: Type.Array(Count(Type.String())),
    types: Type.Array(Count(Type.String())),
    cities: Type.Array(Count(Type.String())),
    neighborhoods: Type.Array(
      Type.Object(
        { city: Type.String(), value: Type.String(), count: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    bedrooms: Type.Array(
      Type.Object({ value: Type.Integer(), count: Type.Integer() }, { additionalProperties: false }),
    ),
    amenities: Type.Array(
      Type.Object(
        { value: StringEnum(AMENITIES), flag: Type.String(), count: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
    priceRanges: Type.Array(
      Type.Object(
        {
          transactionType: StringEnum(TRANSACTION_TYPES),
          currency: Type.String(),
          min: Type.Number(),
          max: Type.Number(),
        },
        { additionalProperties: false },
      ),
      { description: 'Per transaction type and currency: sale and rent prices live on different scales' },
    ),
    area: Type.Object(
      { min: Type.Union([Type.Number(), Type.Null()]), max: Type.Union([Type.Number(), Type.Null()]) },
      { additionalProperties: false },
    ),
    sortOptions: Type.Array(Type.String()),
  },
  { $id: 'PortalFilters', additionalProperties: false },
);
export type PortalFilters = Static<typeof PortalFiltersSchema>;
export const PortalFiltersResponseSchema = DataOf(ref(PortalFiltersSchema));
