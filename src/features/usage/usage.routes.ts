import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  ContactUsageParamsSchema,
  ContactUsageQuerySchema,
  ContactUsageResponseSchema,
  MAX_USAGE_BATCH,
  RecordUsageEventBodySchema,
  USAGE_EVENTS_PER_WRITE_POINT,
  USAGE_PROPS_MAX_BYTES,
  UsageEventBatchBodySchema,
  UsageEventBatchResponseSchema,
  UsageEventResponseSchema,
} from './usage.schema.ts';
import * as usage from './usage.service.ts';

const TAGS = ['Usage'];
/** Recording usage is support-approved (SPEC.md: contacts:write, secret key, access level 3). */
const WRITE = { scope: 'contacts:write', keyTypes: ['secret'], accessLevel: 3, write: true } as const;
const OWNER_RULES =
  'The owner is the contact named by `contactId`, else by `externalId`, else by `email` (case-insensitive); ' +
  'at least one of them is required.';

/** Product usage events of contacts: recording them (secret key, access level 3) and reading the aggregates. */
export const usageRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/usage/events',
    {
      config: { auth: WRITE },
      schema: {
        operationId: 'usage.events.create',
        summary: 'Record a usage event of your product for a contact',
        description:
          `${OWNER_RULES} Answers 200 \`{success: true}\` also when no contact matches: nothing ` +
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
      await usage.recordUsageEvent(db, callerOf(request), request.body);
      return { data: { success: true as const } };
    },
  );

  app.post(
    '/v1/usage/events/batch',
    {
      config: {
        auth: { ...WRITE, batch: { items: 'events', itemsPerWritePoint: USAGE_EVENTS_PER_WRITE_POINT } },
      },
      schema: {
        operationId: 'usage.events.batch',
        summary: 'Record many usage events',
        description:
          `Records 1-${MAX_USAGE_BATCH} usage events in one request, each the body of POST /v1/usage/events ` +
          `with its rules. ${OWNER_RULES} Each event is checked on its own: one that fails (schema, \`props\` ` +
          'size, `occurredAt` window) is listed in `rejected` with the 400 the single route would answer, fields ' +
          'named `body.events[i].…`, and the others are still recorded. `accepted` counts the others, stored in one ' +
          'transaction (all of them, or none on a server failure); an accepted event that names no contact stores ' +
          'nothing, as the single route answers 200 for it. The answer is 200 whatever the events did; a body that ' +
          `is not \`{events: [objects]}\` with 1-${MAX_USAGE_BATCH} items is a 400. Rate limits: one request against ` +
          `\`key\`, and one write per ${USAGE_EVENTS_PER_WRITE_POINT} events (rounded up; ${MAX_USAGE_BATCH} events = ` +
          `${MAX_USAGE_BATCH / USAGE_EVENTS_PER_WRITE_POINT} writes) against \`key-writes\` and ` +
          '`organization-writes`, all or none (429 when not that many are left). Fires no webhook event. Send an ' +
          '`Idempotency-Key` to retry safely: it covers the whole batch.',
        tags: TAGS,
        body: UsageEventBatchBodySchema,
        response: { 200: UsageEventBatchResponseSchema },
      },
    },
    async (request) => ({ data: await usage.recordUsageBatch(db, callerOf(request), request.body) }),
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
      data: await usage.getContactUsage(db, callerOf(request), request.params.id, request.query),
    }),
  );
};
