import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { StringEnum } from '../../platform/http/schemas.ts';
import { AMENITIES, PROPERTY_TYPES } from '../properties/index.ts';
import { FINDER_TRANSACTION_TYPES } from './finder.schema.ts';

// Event payloads inline their schemas (no $ref): the catalog serves them to integrators as they are.
const CriteriaPayload = Type.Object(
  {
    transactionType: Type.Optional(StringEnum(FINDER_TRANSACTION_TYPES)),
    propertyType: Type.Optional(StringEnum(PROPERTY_TYPES)),
    city: Type.Optional(Type.String()),
    neighborhood: Type.Optional(Type.String()),
    budgetMin: Type.Optional(Type.Number()),
    budgetMax: Type.Optional(Type.Number()),
    minBedrooms: Type.Optional(Type.Integer()),
    amenities: Type.Optional(Type.Array(StringEnum(AMENITIES))),
  },
  { additionalProperties: false, description: 'The criteria as the person gave them (text trimmed)' },
);

const SearchPayload = Type.Object(
  {
    id: Type.String({ description: 'fnd_… identifier' }),
    contactId: Type.String(),
    criteria: CriteriaPayload,
    subscribedToAlerts: Type.Boolean(),
    total: Type.Integer({ minimum: 0, description: 'Listings that scored at least 60' }),
    propertyIds: Type.Array(Type.String(), { description: 'The listings shown, best first (12 at most)' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const FinderSubmitted = defineEvent({
  type: 'finder.submitted',
  description:
    'A person used the property finder (POST /v1/finder). Carries the saved search: criteria, whether ' +
    'the person wants alerts, how many listings matched and which were shown. The person arrives in the ' +
    '`contact.created` or `contact.updated` event recorded just before it, in the same transaction.',
  schema: Type.Object({ search: SearchPayload }, { additionalProperties: false }),
  example: {
    search: {
      id: 'fnd_0VhJ3kQ2Zt8mX1pR4sT6uW',
      contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
      criteria: {
        transactionType: 'SALE',
        propertyType: 'APARTMENT',
        city: 'Málaga',
        budgetMax: 350000,
        minBedrooms: 2,
        amenities: ['terrace', 'elevator'],
      },
      subscribedToAlerts: true,
      total: 3,
      propertyIds: [
        'prop_0VhJ3kQ2Zt8mX1pR4sT6uA',
        'prop_0VhJ3kQ2Zt8mX1pR4sT6uB',
        'prop_0VhJ3kQ2Zt8mX1pR4sT6uC',
      ],
      createdAt: '2026-11-02T10:15:00.000Z',
    },
  },
});
