import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { StringEnum, Nullable } from '../../platform/http/schemas.ts';
import { ContactSchema, exampleContact } from '../contacts/index.ts';
import { PREFERRED_TIMES, VISIT_REQUEST_STATUSES } from './leads.schema.ts';

// Event payloads inline their schemas (no $ref): the catalog serves them to integrators as they are.

export const LeadSubmitted = defineEvent({
  type: 'lead.submitted',
  description:
    'The portal contact form (POST /v1/leads) was sent. The payload is only the API response, ' +
    '`{success: true}`: the person arrives in the `contact.created` or `contact.updated` event ' +
    'recorded just before it, in the same transaction.',
  schema: Type.Object({ success: Type.Literal(true) }, { additionalProperties: false }),
  example: { success: true },
});

const VisitRequestPayload = Type.Object(
  {
    id: Type.String({ description: 'vr_… identifier' }),
    status: StringEnum(VISIT_REQUEST_STATUSES),
    propertyId: Type.String(),
    contactId: Type.String(),
    preferredDate: Nullable(Type.String({ format: 'date', description: 'YYYY-MM-DD, null = any day' })),
    preferredTime: Type.Union([StringEnum(PREFERRED_TIMES), Type.Null()], { description: 'null = any time' }),
    message: Nullable(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const PropertySummary = Type.Object(
  { id: Type.String(), title: Type.String(), agentId: Nullable(Type.String()) },
  { additionalProperties: false },
);

export const VisitRequested = defineEvent({
  type: 'visit.requested',
  description:
    'A visitor asked to see a property (POST /v1/leads/schedule). No appointment exists yet: the agency ' +
    'confirms the visit later. Carries the request, the property and the contact (already upserted, ' +
    'owned by the listing agent), so a subscriber to this type alone can call the person back.',
  schema: Type.Object(
    {
      visitRequest: VisitRequestPayload,
      property: PropertySummary,
      contact: Type.Object({ ...ContactSchema.properties }, { additionalProperties: false }),
    },
    { additionalProperties: false },
  ),
  example: {
    visitRequest: {
      id: 'vr_0VhJ3kQ2Zt8mX1pR4sT6uW',
      status: 'PENDING',
      propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
      contactId: exampleContact.id,
      preferredDate: '2026-11-05',
      preferredTime: 'morning',
      message: 'Could we see it before noon?',
      createdAt: '2026-11-02T10:15:00.000Z',
    },
    property: {
      id: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
      title: 'Bright two-bedroom flat near the port',
      agentId: exampleContact.ownerId,
    },
    contact: exampleContact,
  },
});
