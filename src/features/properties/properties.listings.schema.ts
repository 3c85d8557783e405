// The agency's listing API (/v1/listings, issue 25): its query, history and response schemas. A listing
// is a property in the back-office view (AdminProperty): every status, exact location, notes.
import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { PROPERTY_CHANGE_KINDS } from '../../db/schema.ts';
import { ListOf, pageQuery, syncQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, StringEnum, ref } from '../../platform/http/schemas.ts';
import {
  AMENITIES,
  AdminPropertySchema,
  PROPERTY_STATUSES,
  PROPERTY_TYPES,
  TRANSACTION_TYPES,
} from './properties.schema.ts';
import { PortalListQuerySchema, amenityFlag } from './properties.portal.schema.ts';

/** The portal's own filters, as the portal takes them (on the exact location here). */
const portal = PortalListQuerySchema.properties;
const portalFilters = {
  neighborhood: portal.neighborhood,
  bathroomsMin: portal.bathroomsMin,
  areaMin: portal.areaMin,
  areaMax: portal.areaMax,
  bounds: portal.bounds,
  near: portal.near,
  radiusKm: portal.radiusKm,
};
const amenityFlags = Object.fromEntries(
  AMENITIES.map((amenity) => [
    amenityFlag(amenity),
    (portal as Record<string, unknown>)[amenityFlag(amenity)],
  ]),
) as Record<string, TSchema>;

export const ListingListQuerySchema = Type.Object(
  {
    ...pageQuery(),
    status: Type.Optional(StringEnum(PROPERTY_STATUSES, { description: 'Only listings in this status' })),
    publishedOnPortal: Type.Optional(Type.Boolean()),
    featured: Type.Optional(Type.Boolean()),
    agentId: Type.Optional(Type.String({ maxLength: 64, description: 'agt_… of the listing agent' })),
    code: Type.Optional(Type.String({ maxLength: 64, description: "The agency's reference, exact" })),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Every word in code, title, description, city or neighborhood (case- and accent-insensitive)',
      }),
    ),
    transactionType: Type.Optional(StringEnum(TRANSACTION_TYPES, { description: 'Exactly this type' })),
    type: Type.Optional(StringEnum(PROPERTY_TYPES)),
    city: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Case- and accent-insensitive substring' }),
    ),
    priceMin: Type.Optional(Type.Number({ minimum: 0 })),
    priceMax: Type.Optional(Type.Number({ minimum: 0 })),
    bedroomsMin: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    ...portalFilters,
    ...amenityFlags,
    ...syncQuery(),
  },
  { additionalProperties: false },
);
export type ListingListQuery = Static<typeof ListingListQuerySchema>;

export const ListingListResponseSchema = ListOf(ref(AdminPropertySchema), { cursorMode: true });

export const PropertyChangeSchema = Type.Object(
  {
    id: Type.String({ description: 'pchg_… identifier' }),
    kind: StringEnum(PROPERTY_CHANGE_KINDS, { description: 'Which field changed' }),
    previousPrice: Type.Union([Type.Number(), Type.Null()], {
      description: 'PRICE: the price before (null at creation); STATUS: null',
    }),
    price: Type.Union([Type.Number(), Type.Null()], { description: 'PRICE: the new price; STATUS: null' }),
    currency: Type.Union([Type.String(), Type.Null()], {
      description: 'PRICE: of both prices; STATUS: null',
    }),
    previousStatus: Type.Union([StringEnum(PROPERTY_STATUSES), Type.Null()], {
      description: 'STATUS: the status before (null at creation); PRICE: null',
    }),
    status: Type.Union([StringEnum(PROPERTY_STATUSES), Type.Null()], {
      description: 'STATUS: the new status; PRICE: null',
    }),
    actor: Type.Object(
      {
        kind: Type.String({ description: 'SYSTEM (back office, import) or API (a key)' }),
        userId: Type.Union([Type.String(), Type.Null()], { description: 'The agent a key is bound to' }),
      },
      { additionalProperties: false },
    ),
    createdAt: DateTime(),
  },
  {
    $id: 'PropertyChange',
    additionalProperties: false,
    description: 'One price or status change of a listing',
    examples: [
      {
        id: 'pchg_0VhJ3kQ2Zt8mX1pR4sT6uW',
        kind: 'PRICE',
        previousPrice: 325000,
        price: 310000,
        currency: 'EUR',
        previousStatus: null,
        status: null,
        actor: { kind: 'API', userId: null },
        createdAt: '2026-11-27T10:15:00.000Z',
      },
    ],
  },
);
export type PropertyChange = Static<typeof PropertyChangeSchema>;
export const PropertyChangeListResponseSchema = ListOf(ref(PropertyChangeSchema));

export const ListingResponseSchema = DataOf(ref(AdminPropertySchema));

export const listingsSchemas = [PropertyChangeSchema];
