import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';

// The payload is the back-office view, so integrators syncing listings get every field.
const PropertyPayload = Type.Object(
  {
    id: Type.String(),
    code: Type.String(),
    title: Type.String(),
    transactionType: Type.String(),
    type: Type.String(),
    status: Type.String(),
    publishedOnPortal: Type.Boolean(),
    featured: Type.Boolean(),
    price: Type.Number(),
    currency: Type.String(),
    city: Type.String(),
    neighborhood: Type.Union([Type.String(), Type.Null()]),
    agentId: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const example = {
  id: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
  code: 'MAL-0042',
  title: 'Bright two-bedroom flat near the port',
  transactionType: 'SALE',
  type: 'APARTMENT',
  status: 'ACTIVE',
  publishedOnPortal: true,
  featured: false,
  price: 325000,
  currency: 'EUR',
  city: 'Málaga',
  neighborhood: 'Soho',
  agentId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  createdAt: '2026-11-02T10:15:00.000Z',
  updatedAt: '2026-11-02T10:15:00.000Z',
};

export const PropertyCreated = defineEvent({
  type: 'property.created',
  description: 'A property was added in the back office or by an import.',
  schema: Type.Object({ property: PropertyPayload }, { additionalProperties: false }),
  example: { property: example },
});

export const PropertyUpdated = defineEvent({
  type: 'property.updated',
  description:
    'A property changed (price, status, publication, ...). `data.changes` names the fields sent in the change.',
  schema: Type.Object(
    { property: PropertyPayload, changes: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  example: { property: { ...example, price: 310000 }, changes: ['price'] },
});

export const PropertyDeleted = defineEvent({
  type: 'property.deleted',
  description: 'A property was deleted in the back office.',
  schema: Type.Object({ property: PropertyPayload }, { additionalProperties: false }),
  example: { property: example },
});
