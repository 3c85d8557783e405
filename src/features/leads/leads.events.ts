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

// Deciding a visit request (docs/decisions/0203-deciding-visit-requests.md). The request as both
// decisions carry it: the members of `visit.requested`'s, plus what the decision set.
const DecidedVisitRequestPayload = Type.Object(
  {
    ...VisitRequestPayload.properties,
    appointmentId: Nullable(Type.String({ description: 'apt_… of the appointment; null unless CONFIRMED' })),
    declineReason: Nullable(Type.String({ description: 'null unless DECLINED' })),
    decidedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const AppointmentSummary = Type.Object(
  {
    id: Type.String({ description: 'apt_… identifier' }),
    agentId: Type.String(),
    contactId: Nullable(Type.String()),
    propertyId: Nullable(Type.String()),
    type: Type.String(),
    status: Type.String({ description: 'CONFIRMED when the agent auto-confirms, SCHEDULED otherwise' }),
    startsAt: Type.String({ format: 'date-time' }),
    endsAt: Type.String({ format: 'date-time' }),
    source: Type.String({ description: 'API' }),
  },
  { additionalProperties: false },
);

const decidedExample = {
  id: 'vr_0VhJ3kQ2Zt8mX1pR4sT6uW',
  propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
  contactId: exampleContact.id,
  preferredDate: '2026-11-05',
  preferredTime: 'morning' as const,
  message: 'Could we see it before noon?',
  createdAt: '2026-11-02T10:15:00.000Z',
  decidedAt: '2026-11-02T16:40:00.000Z',
};

export const VisitRequestConfirmed = defineEvent({
  type: 'visit_request.confirmed',
  description:
    'The agency confirmed a visit request (POST /v1/visit-requests/{id}/confirm): its appointment was ' +
    'created in the same transaction, with the request’s contact and property, and `appointment.created` ' +
    'is recorded just before this event. Carries the request (status CONFIRMED, `appointmentId`, ' +
    '`decidedAt`) and the appointment.',
  schema: Type.Object(
    { visitRequest: DecidedVisitRequestPayload, appointment: AppointmentSummary },
    { additionalProperties: false },
  ),
  example: {
    visitRequest: {
      ...decidedExample,
      status: 'CONFIRMED',
      appointmentId: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uB',
      declineReason: null,
    },
    appointment: {
      id: 'apt_0VhJ3kQ2Zt8mX1pR4sT6uB',
      agentId: exampleContact.ownerId ?? 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
      contactId: exampleContact.id,
      propertyId: 'prop_0VhJ3kQ2Zt8mX1pR4sT6uW',
      type: 'SHOWING',
      status: 'CONFIRMED',
      startsAt: '2026-11-05T09:00:00.000Z',
      endsAt: '2026-11-05T09:30:00.000Z',
      source: 'API',
    },
  },
});

export const VisitRequestDeclined = defineEvent({
  type: 'visit_request.declined',
  description:
    'The agency declined a visit request (POST /v1/visit-requests/{id}/decline). Carries the request ' +
    '(status DECLINED, `declineReason`, `decidedAt`); no appointment exists.',
  schema: Type.Object({ visitRequest: DecidedVisitRequestPayload }, { additionalProperties: false }),
  example: {
    visitRequest: {
      ...decidedExample,
      status: 'DECLINED',
      appointmentId: null,
      declineReason: 'The flat was sold yesterday',
    },
  },
});
