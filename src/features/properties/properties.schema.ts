import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import { Amount, DataOf, DateTime, StringEnum, ref } from '../../platform/http/schemas.ts';
import {
  AMENITIES,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
  type Amenity,
} from '../../shared/property-vocabulary.ts';

export {
  AMENITIES,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
  type Amenity,
  type PropertyStatus,
  type PropertyType,
  type TransactionType,
} from '../../shared/property-vocabulary.ts';

/** `hasPetFriendly`, `hasPool`, ... */
export const amenityFlag = (amenity: Amenity) => `has${amenity[0]?.toUpperCase()}${amenity.slice(1)}`;

const NullableString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Union([Type.String(options), Type.Null()]);

const CoordinatesSchema = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
  },
  { $id: 'Coordinates', additionalProperties: false },
);

const PhotoSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' }),
    caption: Type.Optional(NullableString({ maxLength: 300 })),
  },
  { $id: 'PropertyPhoto', additionalProperties: false },
);

const PropertyAgentSchema = Type.Object(
  {
    id: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    phone: NullableString(),
    email: NullableString(),
    photoUrl: NullableString(),
  },
  { $id: 'PropertyAgent', additionalProperties: false, description: 'The listing agent' },
);

/** Fields the portal shows (the admin view adds the private ones). */
const portalFields = {
  id: Type.String({ description: 'prop_… identifier' }),
  code: Type.String({ description: "The agency's reference, unique in the organization" }),
  title: Type.String(),
  description: Type.String(),
  transactionType: StringEnum(TRANSACTION_TYPES),
  type: StringEnum(PROPERTY_TYPES),
  status: StringEnum(PROPERTY_STATUSES),
  featured: Type.Boolean(),
  price: Type.Number(),
  previousPrice: Type.Union([Type.Number(), Type.Null()], {
    description:
      'The price before the last reduction (null when it was never reduced, or rose since). On the portal only ' +
      'where the agency shows price drops (organization setting `showPriceDrops`); always in the agency views',
  }),
  currency: Type.String({ description: 'ISO 4217' }),
  city: Type.String(),
  neighborhood: NullableString(),
  address: NullableString({ description: 'null when the location is approximate' }),
  zipCode: NullableString({ description: 'null when the location is approximate' }),
  coordinates: Type.Union([ref(CoordinatesSchema), Type.Null()], {
    description: 'Rounded to 2 decimals (about 1 km) when the location is approximate',
  }),
  approximateLocation: Type.Boolean(),
  bedrooms: Type.Integer(),
  bathrooms: Type.Integer(),
  area: Type.Union([Type.Number(), Type.Null()], { description: 'Built area in square metres' }),
  amenities: Type.Array(StringEnum(AMENITIES)),
  photos: Type.Array(ref(PhotoSchema)),
  agent: Type.Union([ref(PropertyAgentSchema), Type.Null()]),
  createdAt: DateTime(),
  updatedAt: DateTime(),
};

export const PortalPropertySchema = Type.Object(portalFields, {
  $id: 'PortalProperty',
  additionalProperties: false,
  description: 'A property as the public portal shows it: never internal notes or custom fields',
});
export type PortalProperty = Static<typeof PortalPropertySchema>;

export const AdminPropertySchema = Type.Object(
  {
    ...portalFields,
    publishedOnPortal: Type.Boolean(),
    agentId: NullableString(),
    internalNotes: NullableString(),
    customFields: Type.Record(Type.String(), Type.Unknown()),
  },
  {
    $id: 'AdminProperty',
    additionalProperties: false,
    description: 'The back-office view: exact address, zip code and coordinates, notes and custom fields',
  },
);
export type AdminProperty = Static<typeof AdminPropertySchema>;

const writableFields = {
  code: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$' }),
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 20000 }),
  transactionType: StringEnum(TRANSACTION_TYPES),
  type: StringEnum(PROPERTY_TYPES),
  status: StringEnum(PROPERTY_STATUSES),
  publishedOnPortal: Type.Boolean(),
  featured: Type.Boolean(),
  price: Amount(),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: "ISO 4217; default: the organization's" }),
  city: Type.String({ minLength: 1, maxLength: 100 }),
  neighborhood: NullableString({ maxLength: 100 }),
  address: NullableString({ maxLength: 300 }),
  zipCode: NullableString({ maxLength: 20 }),
  coordinates: Type.Union([ref(CoordinatesSchema), Type.Null()]),
  approximateLocation: Type.Boolean(),
  bedrooms: Type.Integer({ minimum: 0, maximum: 100 }),
  bathrooms: Type.Integer({ minimum: 0, maximum: 100 }),
  area: Type.Union([Type.Number({ minimum: 0, maximum: 1e7 }), Type.Null()]),
  amenities: Type.Array(StringEnum(AMENITIES), { uniqueItems: true, maxItems: AMENITIES.length }),
  photos: Type.Array(ref(PhotoSchema), { maxItems: 50 }),
  agentId: NullableString({ description: 'agt_… of an agent of the organization' }),
  internalNotes: NullableString({ maxLength: 20000 }),
  customFields: Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), {
    maxProperties: 100,
    description: 'Free-form data of the agency; never shown on the portal',
  }),
};
type Writable = typeof writableFields;
const REQUIRED = ['code', 'title', 'transactionType', 'type', 'price', 'city'] as const;

export const CreatePropertyBodySchema = Type.Object(
  Object.fromEntries(
    Object.entries(writableFields).map(([name, schema]) => [
      name,
      (REQUIRED as readonly string[]).includes(name) ? schema : Type.Optional(schema),
    ]),
  ) as {
    [K in keyof Writable]: K extends (typeof REQUIRED)[number]
      ? Writable[K]
      : ReturnType<typeof Type.Optional<Writable[K]>>;
  },
  { $id: 'CreatePropertyBody', additionalProperties: false },
);
export type CreatePropertyBody = Static<typeof CreatePropertyBodySchema>;

export const UpdatePropertyBodySchema = Type.Partial(Type.Object(writableFields), {
  $id: 'UpdatePropertyBody',
  additionalProperties: false,
  minProperties: 1,
});
export type UpdatePropertyBody = Static<typeof UpdatePropertyBodySchema>;

export const AdminPropertyResponseSchema = DataOf(ref(AdminPropertySchema));
export const AdminPropertyListResponseSchema = ListOf(ref(AdminPropertySchema));
export const PortalPropertyResponseSchema = DataOf(ref(PortalPropertySchema));
export const PortalPropertyListResponseSchema = ListOf(ref(PortalPropertySchema), { cursorMode: true });
/** A portal list that only pages (featured, the MCP search). */
export const PortalPropertyPageResponseSchema = ListOf(ref(PortalPropertySchema));

export const OrgPropertyParamsSchema = Type.Object(
  { orgId: Type.String(), propertyId: Type.String() },
  { additionalProperties: false },
);
export const PropertyIdParamsSchema = Type.Object({ id: Type.String() }, { additionalProperties: false });

export const AdminListPropertiesQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(StringEnum(PROPERTY_STATUSES)),
    publishedOnPortal: Type.Optional(Type.Boolean()),
    agentId: Type.Optional(Type.String()),
    code: Type.Optional(Type.String({ maxLength: 64 })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type AdminListPropertiesQuery = Static<typeof AdminListPropertiesQuerySchema>;

export const PORTAL_MAX_PAGE_SIZE = 48;
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
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type PortalListQuery = Static<typeof PortalListQuerySchema> & Partial<Record<string, string>>;

export const FeaturedQuerySchema = Type.Object(
  { ...pageQuery({ maxPageSize: PORTAL_MAX_PAGE_SIZE, defaultPageSize: 12 }) },
  { additionalProperties: false },
);

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

export const propertiesSchemas = [
  CoordinatesSchema,
  PhotoSchema,
  PropertyAgentSchema,
  PortalPropertySchema,
  AdminPropertySchema,
  CreatePropertyBodySchema,
  UpdatePropertyBodySchema,
  PortalFiltersSchema,
];
