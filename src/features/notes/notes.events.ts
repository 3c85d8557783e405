import { Type } from '@fastify/type-provider-typebox';
import { defineEvent } from '../../platform/events/catalog.ts';
import { NoteSchema, type Note } from './notes.schema.ts';

const NotePayload = Type.Object({ ...NoteSchema.properties }, { additionalProperties: false });

export const exampleNote: Note = {
  id: 'note_0VhJ3kQ2Zt8mX1pR4sT6uN',
  contactId: 'ct_0VhJ3kQ2Zt8mX1pR4sT6uW',
  body: 'Called back: prefers visits after 18:00, budget up to 420,000 EUR.',
  authorAgentId: null,
  createdAt: '2027-03-29T10:15:00.000Z',
};

export const NoteCreated = defineEvent({
  type: 'note.created',
  description: 'A note was added to a contact (POST /v1/contacts/{id}/notes). `data.note` is the note.',
  schema: Type.Object({ note: NotePayload }, { additionalProperties: false }),
  example: { note: exampleNote },
});
