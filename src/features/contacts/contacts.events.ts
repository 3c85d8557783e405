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
