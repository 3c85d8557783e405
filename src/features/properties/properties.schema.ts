import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { Amount, DataOf, DateTime, StringEnum, ref } from '../../platform/http/schemas.ts';
import { LANGUAGE_PATTERN } from '../../platform/http/languages.ts';
import {
  ADDRESS_VISIBILITIES,
  AMENITIES,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from '../../shared/property-vocabulary.ts';
import { PortalFiltersSchema } from './properties.portal.schema.ts';

export {
  ADDRESS_VISIBILITIES,
  AMENITIES,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
  type AddressVisibility,
  type Amenity,
  type PropertyStatus,
  type PropertyType,
  type TransactionType,
} from '../../shared/property-vocabulary.ts';

const NullableString = (options: Parameters<typeof Type.String>[0] = {}) =>
  Type.Union([Type.String(options), Type.Null()]);

const CoordinatesSchema = Type.Object(
  {
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 }),
  },
  { $id: 'Coordinates', additionalProperties: false },
);

// Uploaded photos (decision 0233): POST /v1/listings/{id}/photos and the routes beside it.
const PHOTO_EXAMPLE_BASE =
  'https://api.example.com/media/listings/org_0VhJ3kQ2Zt8mX1pR4sT6uO/prop_0VhJ3kQ2Zt8mX1pR4sT6uW/ph_0VhJ3kQ2Zt8mX1pR4sT6uE';
const PhotoSizeSchema = Type.Object(
  {
    width: Type.Integer({ minimum: 1, description: 'Pixels' }),
    height: Type.Integer({ minimum: 1, description: 'Pixels' }),
    url: Type.String({
      format: 'uri',
      description: 'Public WebP file, served with a one-year immutable cache',
    }),
  },
  { additionalProperties: false },
);

export const PhotoSchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: '^ph_[0-9A-Za-z]{22}$',
        description:
          'ph_… identifier, in every answer: random for an uploaded photo, derived from the URL for a photo given ' +
          'by URL (the same while the URL stays). In a create or update body it names a photo of the listing to ' +
          'keep (an uploaded one keeps its files, sizes and dimensions)',
      }),
    ),
    url: Type.String({
      format: 'uri',
      maxLength: 2048,
      pattern: '^https?://',
      description: 'The photo; for an uploaded one, its largest size',
      examples: [`${PHOTO_EXAMPLE_BASE}/1600.webp`],
    }),
    caption: Type.Optional(NullableString({ maxLength: 300 })),
    altText: Type.Optional(
      NullableString({
        maxLength: 500,
        description: 'Text alternative for screen readers (the `alt` of an `<img>`); null when not given',
        examples: ['Bright living room with a sofa facing a window onto the sea'],
      }),
    ),
    width: Type.Optional(
      Type.Integer({
        minimum: 1,
        readOnly: true,
        description: 'Uploaded photos: the original width in pixels, upright (EXIF orientation applied)',
        examples: [4032],
      }),
    ),
    height: Type.Optional(
      Type.Integer({
        minimum: 1,
        readOnly: true,
        description: 'Uploaded photos: the original height in pixels, upright',
        examples: [3024],
      }),
    ),
    sizes: Type.Optional(
      Type.Array(PhotoSizeSchema, {
        readOnly: true,
        description:
          'Uploaded photos: WebP renditions 480, 960 and 1600 pixels wide, narrowest first, for `srcset`; never ' +
          'wider than the original (a 1000-pixel photo has 480, 960 and 1000). Ignored in a create or update body',
        examples: [
          [480, 960, 1600].map((width) => ({
            width,
            height: (width * 3) / 4,
            url: `${PHOTO_EXAMPLE_BASE}/${width}.webp`,
          })),
        ],
      }),
    ),
    jpegUrl: Type.Optional(
      Type.String({
        format: 'uri',
        readOnly: true,
        description:
          'Uploaded photos: the widest size once more as a JPEG, for consumers that take no WebP (the Kyero feed ' +
          'links this one). Photos uploaded before this rendition existed have none. Ignored in a create or update body',
        examples: [`${PHOTO_EXAMPLE_BASE}/1600.jpg`],
      }),
    ),
  },
  {
    $id: 'PropertyPhoto',
    additionalProperties: false,
    description:
      'A photo given by URL, or uploaded (with `sizes`, `width` and `height`). Answers always carry `id` and `altText`',
  },
);
export type PhotoView = Static<typeof PhotoSchema> & { id: string; altText: string | null };

const TranslationsSchema = Type.Record(
  Type.String({ pattern: LANGUAGE_PATTERN }),
  Type.Object(
    {
      title: Type.String({ minLength: 1, maxLength: 200 }),
      description: Type.String({ maxLength: 20000 }),
    },
    { additionalProperties: false },
  ),
  {
    $id: 'PropertyTranslations',
    additionalProperties: false,
    // The document says what the keys are: @fastify/swagger turns the key pattern (patternProperties)
    // into plain additionalProperties, which would admit any key.
    propertyNames: { pattern: LANGUAGE_PATTERN },
    maxProperties: 20,
    examples: [
      {
        de: {
          title: 'Wohnung mit Meerblick in Málaga',
          description: 'Helle Wohnung mit drei Schlafzimmern und Meerblick, zwei Minuten vom Strand.',
        },
      },
    ],
    description:
      "Title and description in languages other than the organization's default (ISO 639-1 keys: es, en, pt, ...)",
  },
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
  address: NullableString({
    description:
      'On the portal: the whole address (EXACT), the street without its number (STREET), null (HIDDEN)',
  }),
  zipCode: NullableString({ description: 'On the portal: null when the address is HIDDEN' }),
  coordinates: Type.Union([ref(CoordinatesSchema), Type.Null()], {
    description:
      'On the portal: rounded to `coordinatePrecision` decimals, by default 3 (about 100 m) for STREET and ' +
      '2 (about 1 km) for HIDDEN',
  }),
  addressVisibility: StringEnum(ADDRESS_VISIBILITIES, {
    description: 'What the portal, the feeds and MCP show of the address',
  }),
  approximateLocation: Type.Boolean({ description: 'addressVisibility is HIDDEN' }),
  bedrooms: Type.Integer(),
  bathrooms: Type.Integer(),
  area: Type.Union([Type.Number(), Type.Null()], { description: 'Built area in square metres' }),
  amenities: Type.Array(StringEnum(AMENITIES)),
  photos: Type.Array(ref(PhotoSchema)),
  agent: Type.Union([ref(PropertyAgentSchema), Type.Null()]),
  createdAt: DateTime(),
  updatedAt: DateTime(),
};

export const PortalPropertySchema = Type.Object(
  {
    ...portalFields,
    updatedAt: DateTime({
      description:
        'When what the portal shows of the listing last changed (an edit of internal notes or custom fields does not move it); `updatedAfter` and the cursor walk follow it',
    }),
    language: Type.String({
      description:
        "The language of `title` and `description`: the one asked (`lang`, Accept-Language) when the listing has it, else the organization's default",
    }),
  },
  {
    $id: 'PortalProperty',
    additionalProperties: false,
    description: 'A property as the public portal shows it: never internal notes or custom fields',
  },
);
export type PortalProperty = Static<typeof PortalPropertySchema>;

export const AdminPropertySchema = Type.Object(
  {
    ...portalFields,
    publishedOnPortal: Type.Boolean(),
    coordinatePrecision: Type.Union([Type.Integer(), Type.Null()], {
      description: "Decimals of the coordinates shown outside the agency; null: the visibility's default",
    }),
    translations: ref(TranslationsSchema),
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
  approximateLocation: Type.Boolean({
    description: 'true: addressVisibility HIDDEN (when addressVisibility is not given); false: EXACT',
  }),
  addressVisibility: StringEnum(ADDRESS_VISIBILITIES, {
    description:
      'EXACT (default), STREET (no house number; coordinates to 3 decimals) or HIDDEN (no address or zip code; 2 decimals)',
  }),
  coordinatePrecision: Type.Union([Type.Integer({ minimum: 1, maximum: 6 }), Type.Null()], {
    description: "Decimals of the coordinates shown outside the agency; null: the visibility's default",
  }),
  translations: ref(TranslationsSchema),
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
  {
    $id: 'CreatePropertyBody',
    additionalProperties: false,
    // A listing as an agency writes one: photos by URL (an `id` names a photo the listing already has).
    examples: [
      {
        code: 'MAL-0042',
        title: 'Sea view flat in Málaga',
        description: 'Bright three-bedroom flat with a sea view, two minutes from the beach.',
        transactionType: 'SALE',
        type: 'APARTMENT',
        status: 'ACTIVE',
        publishedOnPortal: true,
        price: 395000,
        currency: 'EUR',
        city: 'Málaga',
        neighborhood: 'El Limonar',
        address: 'Calle Larios 5',
        zipCode: '29015',
        coordinates: { latitude: 36.7213, longitude: -4.4214 },
        addressVisibility: 'STREET',
        translations: {
          de: {
            title: 'Wohnung mit Meerblick in Málaga',
            description: 'Helle Wohnung mit drei Schlafzimmern und Meerblick, zwei Minuten vom Strand.',
          },
        },
        bedrooms: 3,
        bathrooms: 2,
        area: 110,
        amenities: ['elevator', 'terrace'],
        photos: [
          {
            url: 'https://images.example.com/listings/mal-0042/living-room.jpg',
            caption: 'Living room',
            altText: 'Bright living room with a sofa facing a window onto the sea',
          },
        ],
        agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uE',
        internalNotes: 'The owner is open to offers.',
      },
    ],
  },
);
export type CreatePropertyBody = Static<typeof CreatePropertyBodySchema>;

export const UpdatePropertyBodySchema = Type.Partial(Type.Object(writableFields), {
  $id: 'UpdatePropertyBody',
  additionalProperties: false,
  minProperties: 1,
  // A change names what it changes (sampled, it would rewrite the whole listing, its code and photos too).
  examples: [{ price: 379000, featured: true }],
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

export const propertiesSchemas = [
  CoordinatesSchema,
  PhotoSchema,
  TranslationsSchema,
  PropertyAgentSchema,
  PortalPropertySchema,
  AdminPropertySchema,
  CreatePropertyBodySchema,
  UpdatePropertyBodySchema,
  PortalFiltersSchema,
];
