import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { TimelineParamsSchema, TimelineQuerySchema, TimelineResponseSchema } from './timeline.schema.ts';
import { contactTimeline } from './timeline.service.ts';

/** `GET /v1/contacts/{id}/timeline`. */
export const timelineRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/contacts/:id/timeline',
    {
      config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'contacts.timeline.list',
        summary: "A contact's timeline",
        description:
          'Everything that happened with the contact, newest first, paged (`page`, `pageSize`): notes, portal ' +
          'forms (leads, visit requests), appointments, deals, deal moves (DEAL_MOVE), messages (only for a key with ' +
          '`conversations:read`) and one USAGE item per day of product usage. Each item is `{type, id, at, ' +
          'data}`. 404 for a contact of another organization.',
        tags: ['Contacts'],
        params: TimelineParamsSchema,
        querystring: TimelineQuerySchema,
        response: { 200: TimelineResponseSchema },
      },
    },
    async (request) => contactTimeline(db, callerOf(request), request.params.id, request.query),
  );
};
