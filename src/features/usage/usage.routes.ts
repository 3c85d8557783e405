import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  ContactUsageParamsSchema,
  ContactUsageQuerySchema,
  ContactUsageResponseSchema,
  RecordUsageEventBodySchema,
  USAGE_PROPS_MAX_BYTES,
  UsageEventResponseSchema,
} from './usage.schema.ts';
import * as usage from './usage.service.ts';

const TAGS = ['Usage'];

/** Product usage events of contacts: recording them (secret key, access level 3) and reading the aggregates. */
export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/usage/events',
    {
      config: { auth: { scope: 'contacts:write', keyTypes: ['secret'], accessLevel: 3, write: true } },
      schema: {
        operationId: 'usage.events.create',
        summary: 'Record a usage event of your product for a contact',
        description:
          'The owner is the contact named by `contactId`, else by `externalId`, else by `email` (case-insensitive); ' +
          'at least one of them is required. Answers 200 `{success: true}` also when no contact matches: nothing ' +
          'is stored then. The event is counted per contact, UTC day of `occurredAt` and `name` (count, first and ' +
          'last time; read them with GET /v1/contacts/{id}/usage); the raw event, with `props` (at most ' +
          `${USAGE_PROPS_MAX_BYTES} bytes as JSON), is kept USAGE_DETAIL_RETENTION_DAYS days (default 90) after it ` +
          "arrives. Updates the contact's score; fires no webhook event. Send an `Idempotency-Key` to retry safely.",
        tags: TAGS,
        body: RecordUsageEventBodySchema,
        response: { 200: UsageEventResponseSchema },
      },
    },
    async (request) => {
      await usage.recordUsageEvent(db, principalOf(request), request.body);
      return { data: { success: true as const } };
    },
  );

  app.get(
    '/v1/contacts/:id/usage',
    {
      config: { auth: { scope: 'contacts:read', keyTypes: SECRET_KEYS, write: false } },
      schema: {
        operationId: 'contacts.usage.get',
        summary: "A contact's product usage per day and event name",
        description:
          `Daily aggregates over UTC days \`from\`..\`to\` (inclusive; default the last 30 days, at most ` +
          `${usage.MAX_USAGE_DAYS}): totals per event name (count, first and last time) and counts per day and ` +
          'name. Aggregates are kept for good, also after the raw events are purged.',
        tags: TAGS,
        params: ContactUsageParamsSchema,
        querystring: ContactUsageQuerySchema,
        response: { 200: ContactUsageResponseSchema },
      },
    },
    async (request) => ({
      data: await usage.getContactUsage(
        db,
        principalOf(request).organization.id,
        request.params.id,
        request.query,
      ),
    }),
  );
};
