import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  ContactNotesParamsSchema,
  CreateNoteBodySchema,
  NoteListResponseSchema,
  NoteResponseSchema,
  NotesQuerySchema,
} from './notes.schema.ts';
import * as notes from './notes.service.ts';

const TAGS = ['Contacts'];

/** Notes on a contact: `POST` and `GET /v1/contacts/{id}/notes`. */
export const notesRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/contacts/:id/notes',
    {
      config: { auth: { scope: 'contacts:write', keyTypes: ['secret'], write: true, accessLevel: 3 } },
      schema: {
        operationId: 'contacts.notes.create',
        summary: 'Add a note to a contact',
        description:
          'Secret key with `contacts:write`, access level 3. The note keeps the agent the key acts for as its ' +
          'author. Records `note.created`. 404 for a contact of another organization. Send an `Idempotency-Key` ' +
          'to retry safely.',
        tags: TAGS,
        params: ContactNotesParamsSchema,
        body: CreateNoteBodySchema,
        response: { 201: NoteResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await notes.addNote(db, callerOf(request), request.params.id, request.body),
      }),
  );

  app.get(
    '/v1/contacts/:id/notes',
    {
      config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'contacts.notes.list',
        summary: "A contact's notes",
        description: 'Newest first, paged (`page`, `pageSize`). 404 for a contact of another organization.',
        tags: TAGS,
        params: ContactNotesParamsSchema,
        querystring: NotesQuerySchema,
        response: { 200: NoteListResponseSchema },
      },
    },
    async (request) => notes.listContactNotes(db, callerOf(request), request.params.id, request.query),
  );
};
