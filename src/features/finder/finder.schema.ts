import { Type, type Static, type TSchema } from '@fastify/type-provider-typebox';
import { Amount, DataOf, ref, StringEnum } from '../../platform/http/schemas.ts';
import { AMENITIES, PROPERTY_TYPES, TRANSACTION_TYPES } from '../properties/index.ts';
import { FormConsentsSchema, PortalPersonFields } from '../contacts/index.ts';

/** What a person may look for (SPEC.md "POST /v1/finder"): buy or rent; SALE_OR_RENT is a listing's value. */
export const FINDER_TRANSACTION_TYPES = ['SALE', 'RENT'] as const;

/** The scored criteria, in the order the breakdown lists them (docs/finder.md). */
export const FINDER_CRITERIA = [
  'transactionType',
  'propertyType',
  'budget',
  'location',
  'bedrooms',
  'amenities',
] as const;
export type FinderCriterion = (typeof FINDER_CRITERIA)[number];

export const MATCH_STATES = ['match', 'partial', 'miss'] as const;
export type MatchState = (typeof MATCH_STATES)[number];

/** The largest number of properties one answer lists. */
export const FINDER_MAX_RESULTS = 12;

const Budget = (description: string) => Type.Optional(Amount({ description }));

export const FinderBodySchema = Type.Object(
  {
    transactionType: Type.Optional(
      StringEnum(FINDER_TRANSACTION_TYPES, {
        description: 'Buy or rent. Listings offered for both (SALE_OR_RENT) suit either; others never show',
      }),
    ),
    propertyType: Type.Optional(
      StringEnum(PROPERTY_TYPES, { description: 'A listing of a related type scores a partial match' }),
    ),
    city: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Compared case- and accent-insensitively' }),
    ),
    neighborhood: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Compared case- and accent-insensitively' }),
    ),
    budgetMin: Budget('Lowest price wanted, in the listing currency'),
    budgetMax: Budget('Highest price wanted; listings over it by more than 10% never show'),
    minBedrooms: Type.Optional(Type.Integer({ minimum: 0, maximum: 20 })),
    amenities: Type.Optional(
      Type.Array(StringEnum(AMENITIES), {
        maxItems: AMENITIES.length,
        uniqueItems: true,
        description: 'Amenities wanted; each one the listing has earns its share of the points',
      }),
    ),
    firstName: PortalPersonFields.firstName,
    phone: PortalPersonFields.phone,
    email: PortalPersonFields.email,
    subscribedToAlerts: Type.Optional(
      Type.Boolean({ description: 'The person wants to hear about new matching listings. Default false' }),
    ),
    consents: Type.Optional(FormConsentsSchema),
  },
  {
    $id: 'FinderBody',
    additionalProperties: false,
    description:
      'The search criteria (at least one) and the person who searches. Criteria left out are not scored',
  },
);
export type FinderBody = Static<typeof FinderBodySchema>;

export const FinderBreakdownItemSchema = Type.Object(
  {
    criterio: StringEnum(FINDER_CRITERIA, { description: 'The criterion' }),
    puntos: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Points earned; they add up to matchScore',
    }),
    peso: Type.Integer({
      minimum: 1,
      maximum: 100,
      description: 'Points a full match earns (the weights of the given criteria add up to 100)',
    }),
    estado: StringEnum(MATCH_STATES, { description: 'match: full points; partial: some; miss: none' }),
  },
  { $id: 'FinderBreakdownItem', additionalProperties: false },
);
export type FinderBreakdownItem = Static<typeof FinderBreakdownItemSchema>;

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const FinderMatchSchema = Type.Object(
  {
    id: Type.String({ description: 'prop_… identifier (GET /v1/properties/{id} has the full listing)' }),
    title: Type.String(),
    price: Type.Number(),
    currency: Type.String(),
    transactionType: StringEnum(TRANSACTION_TYPES),
    type: StringEnum(PROPERTY_TYPES),
    city: Type.String(),
    neighborhood: NullableString,
    bedrooms: Type.Integer(),
    area: Type.Union([Type.Number(), Type.Null()]),
    photoUrl: Type.Union([Type.String(), Type.Null()], {
      description: 'The first photo, null without photos',
    }),
    matchScore: Type.Integer({ minimum: 0, maximum: 100 }),
    breakdown: Type.Array(ref(FinderBreakdownItemSchema), {
      description: 'One item per criterion given, in a fixed order',
    }),
  },
  {
    $id: 'FinderMatch',
    additionalProperties: false,
    description: 'A published property and how well it fits',
  },
);
export type FinderMatch = Static<typeof FinderMatchSchema>;

export const FinderResultSchema = Type.Object(
  {
    contact: Type.Object(
      { id: Type.String({ description: 'ct_… identifier of the saved contact' }) },
      { additionalProperties: false },
    ),
    searchId: Type.String({ description: 'fnd_… identifier of the saved search' }),
    total: Type.Integer({
      minimum: 0,
      description: 'How many published listings score at least 60 (all of them, not only those listed)',
    }),
    properties: Type.Array(ref(FinderMatchSchema), {
      maxItems: FINDER_MAX_RESULTS,
      description: 'The best 12 at most, best first (newest first among equal scores)',
    }),
  },
  { $id: 'FinderResult', additionalProperties: false },
);
export type FinderResult = Static<typeof FinderResultSchema>;

export const FinderResponseSchema = DataOf(ref(FinderResultSchema));

export const finderSchemas: TSchema[] = [
  FinderBodySchema,
  FinderBreakdownItemSchema,
  FinderMatchSchema,
  FinderResultSchema,
];
