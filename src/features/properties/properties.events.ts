import { Type } from '@fastify/type-provider-typebox';
import { defineEvent, tombstoneSchema } from '../../platform/events/catalog.ts';

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
  description:
    'A property was deleted in the back office. `data.property` is a tombstone: its id and when it was ' +
    'deleted. If it was on the portal, `property.removed` (reason DELETED) is recorded too.',
  schema: tombstoneSchema('property'),
  example: { property: { id: example.id, deletedAt: '2027-03-29T10:15:00.000Z' } },
});

/** Why a property left the portal. */
export const PORTAL_REMOVAL_REASONS = ['UNPUBLISHED', 'DEACTIVATED', 'DELETED'] as const;
export type PortalRemovalReason = (typeof PORTAL_REMOVAL_REASONS)[number];

export const PropertyRemoved = defineEvent({
  type: 'property.removed',
  description:
    'A property left the public portal: unpublished (`publishedOnPortal` false), deactivated (status no ' +
    'longer ACTIVE) or deleted, by the back office or an import. A portal mirror deletes its copy; a later ' +
    '`property.updated` that makes it visible again brings it back. `data.property` = `{id, deletedAt, ' +
    'reason}`, deletedAt being when it left.',
  schema: tombstoneSchema('property', {
    reason: Type.Union([Type.Literal('UNPUBLISHED'), Type.Literal('DEACTIVATED'), Type.Literal('DELETED')], {
      description: `Why it left: ${PORTAL_REMOVAL_REASONS.join(', ')}`,
    }),
  }),
  example: {
    property: { id: example.id, deletedAt: '2027-03-29T10:15:00.000Z', reason: 'UNPUBLISHED' as const },
  },
});

export const PropertyPriceChanged = defineEvent({
  type: 'property.price_changed',
  description:
    'A property got a new price (back office, import or the listing API), recorded with `property.updated` in ' +
    'the same transaction. `data.previousPrice` is what it cost before; both are in `data.property.currency`.',
  schema: Type.Object(
    { property: PropertyPayload, previousPrice: Type.Number(), price: Type.Number() },
    { additionalProperties: false },
  ),
  example: { property: { ...example, price: 310000 }, previousPrice: 325000, price: 310000 },
});

export const PropertyStatusChanged = defineEvent({
  type: 'property.status_changed',
  description:
    'A property moved in its lifecycle (DRAFT, ACTIVE, RESERVED, SOLD, RENTED, INACTIVE), recorded with ' +
    '`property.updated` in the same transaction. `data.previousStatus` is where it came from.',
  schema: Type.Object(
    { property: PropertyPayload, previousStatus: Type.String(), status: Type.String() },
    { additionalProperties: false },
  ),
  example: { property: { ...example, status: 'RESERVED' }, previousStatus: 'ACTIVE', status: 'RESERVED' },
});
