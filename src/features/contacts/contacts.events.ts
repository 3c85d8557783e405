import { Type } from '@fastify/type-provider-typebox';
import { defineEvent, tombstoneSchema } from '../../platform/events/catalog.ts';
import { ContactSchema, type Contact } from './contacts.schema.ts';

// Event payloads inline the schema (no $ref): the catalog serves it to integrators as is.
const ContactPayload = Type.Object({ ...ContactSchema.properties }, { additionalProperties: false });

export const exampleContact: Contact = {
  id: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
  code: 'CT-000042',
  firstName: 'Lucía',
  lastName: 'Fernández',
  fullName: 'Lucía Fernández',
  email: 'lucia@example.com',
  phone: '+34612345678',
  source: 'WEBSITE',
  status: 'QUALIFIED',
  type: 'CLIENT',
  score: 35,
  ownerId: 'agt_0VhJ3kQ2Zt8mX1pR4sT6uA',
  preferredCity: 'Málaga',
  preferredLanguage: 'es',
  preferredType: 'APARTMENT',
  budget: 350000,
  currency: 'EUR',
  tags: ['portal', 'buyer'],
  optedOut: false,
  externalId: null,
  createdAt: '2026-11-02T10:15:00.000Z',
  updatedAt: '2026-11-02T10:15:00.000Z',
};

export const ContactCreated = defineEvent({
  type: 'contact.created',
  description:
    'A contact was created: by a portal form (lead, visit request, booking, finder), the API or the back office. `data.contact` carries the person.',
  schema: Type.Object({ contact: ContactPayload }, { additionalProperties: false }),
  example: { contact: exampleContact },
});

export const ContactUpdated = defineEvent({
  type: 'contact.updated',
  description:
    'A contact changed, or came back through a portal form. `data.changes` names the fields that changed (`lastActivityAt` alone means the person got in touch again).',
  schema: Type.Object(
    { contact: ContactPayload, changes: Type.Array(Type.String()) },
    { additionalProperties: false },
  ),
  example: { contact: exampleContact, changes: ['email', 'tags', 'lastActivityAt'] },
});

export const ContactDeleted = defineEvent({
  type: 'contact.deleted',
  description:
    'A contact was erased (`DELETE /v1/contacts/{id}` or the back office; docs/privacy.md) or merged into ' +
    'another (then `contact.merged` follows). Its leads, visit requests, finder searches, notes, consents, ' +
    'messages and usage went with it; its deals, tasks and appointments stay without it (each records its ' +
    '`*.updated` first). `data.contact` is a tombstone: its id and when it was deleted, never its details.',
  schema: tombstoneSchema('contact'),
  example: { contact: { id: exampleContact.id, deletedAt: '2027-03-29T10:15:00.000Z' } },
});

// Consent is a fact about the person, so its event is a contact event (`contact.*` subscribes to it).
// The payload names the contact by id only: no name, phone or email travels with it.
const ConsentPayload = Type.Object(
  {
    contactId: Type.String(),
    channel: Type.Union([Type.Literal('MESSAGING'), Type.Literal('EMAIL'), Type.Literal('PHONE')]),
    status: Type.Union([Type.Literal('GRANTED'), Type.Literal('REVOKED')]),
    source: Type.String({ description: 'Where it was given or withdrawn (INBOUND_STOP, LEAD_FORM, ...)' }),
    at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

export const ContactConsentChanged = defineEvent({
  type: 'contact.consent_changed',
  description:
    "A contact's consent on a channel (MESSAGING, EMAIL, PHONE) changed status, or was stated for the " +
    'first time: by PUT /v1/contacts/{id}/consents/{channel}, the `optedOut` field (source OPT_OUT), an ' +
    'inbound STOP (INBOUND_STOP) or a portal form (LEAD_FORM, FINDER_FORM). Restating the same status adds ' +
    'a history row but no event. `data.consent` carries the contact id only, no personal data.',
  schema: Type.Object({ consent: ConsentPayload }, { additionalProperties: false }),
  example: {
    consent: {
      contactId: exampleContact.id,
      channel: 'MESSAGING',
      status: 'REVOKED',
      source: 'INBOUND_STOP',
      at: '2027-03-29T10:15:00.000Z',
    },
  },
});
