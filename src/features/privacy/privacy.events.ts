import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { ContactSchema, exampleContact } from '../contacts/index.ts';

const ContactPayload = Type.Object({ ...ContactSchema.properties }, { additionalProperties: false });

export const ContactMerged = defineEvent({
  type: 'contact.merged',
  description:
    'Two contacts were merged (`POST /v1/contacts/{id}/merge`): `data.contact` is the one kept, as it is now; ' +
    '`data.sourceContactId` the one merged into it and removed (its `contact.deleted` tombstone comes just ' +
    'before). `data.filled` names the fields the kept contact took from the other; `data.moved` counts the ' +
    'records that changed contact, by place. Deals, tasks and appointments moved also record their `*.updated`.',
  schema: Type.Object(
    {
      contact: ContactPayload,
      sourceContactId: Type.String(),
      filled: Type.Array(Type.String()),
      moved: Type.Record(Type.String(), Type.Integer()),
    },
    { additionalProperties: false },
  ),
  example: {
    contact: exampleContact,
    sourceContactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uX',
    filled: ['email'],
    moved: { leads: 2, deals: 1, messages: 14, contactNotes: 1 },
  },
});
