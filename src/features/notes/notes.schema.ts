import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { DataOf, DateTime, Nullable, ref } from '../../platform/http/schemas.ts';

export const MAX_NOTE_LENGTH = 10_000;

export const NoteSchema = Type.Object(
  {
    id: Type.String({ description: 'note_… identifier' }),
    contactId: Type.String(),
    body: Type.String(),
    authorAgentId: Nullable(Type.String({ description: 'The agent the writing key acts for, if any' })),
    createdAt: DateTime(),
  },
  { $id: 'Note', additionalProperties: false },
);
export type Note = Static<typeof NoteSchema>;

export const CreateNoteBodySchema = Type.Object(
  {
    body: Type.String({
      minLength: 1,
      maxLength: MAX_NOTE_LENGTH,
      pattern: '\\S',
      description: `The note's text (1-${MAX_NOTE_LENGTH} characters, not blank)`,
      examples: ['Called back: prefers visits after 18:00, budget up to 420,000 EUR.'],
    }),
  },
  { $id: 'CreateNoteBody', additionalProperties: false },
);
export type CreateNoteBody = Static<typeof CreateNoteBodySchema>;

export const ContactNotesParamsSchema = Type.Object(
  { id: Type.String({ description: 'ct_… identifier of the contact' }) },
  { additionalProperties: false },
);
export const NotesQuerySchema = Type.Object({ ...pageQuery() }, { additionalProperties: false });
export type NotesQuery = Static<typeof NotesQuerySchema>;

export const NoteResponseSchema = DataOf(ref(NoteSchema));
export const NoteListResponseSchema = ListOf(ref(NoteSchema));
export const notesSchemas = [NoteSchema, CreateNoteBodySchema];
