import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import {
  EventIdParamsSchema,
  EventLogEntryResponseSchema,
  EventLogListResponseSchema,
  ListEventLogQuerySchema,
} from './event-log.schema.ts';
import * as eventLog from './event-log.service.ts';

const READ = { auth: { scope: 'events:read', keyTypes: SECRET_KEYS, write: false } } as const;
const TAGS = ['Events'];

const LIST_DESCRIPTION =
  'Every event of the organization, in the order the changes committed: `sequence` is 1, 2, 3… without ' +
  'gaps, and an event never appears below a `sequence` already read, however transactions overlap (it is ' +
  'stamped at commit: docs/sync.md). Follow it with `after=<meta.nextCursor>`: each event exactly once. ' +
  'Items are the webhook delivery envelope. A test key reads the test organization’s events, a live key ' +
  'the live ones. Events are kept EVENT_LOG_RETENTION_DAYS days (default 30).';

/** The event log: `GET /v1/event-log` and `GET /v1/event-log/{id}`. */
export const eventLogRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/v1/event-log',
    {
      config: READ,
      schema: {
        operationId: 'eventLog.list',
        summary: 'Read the event log',
        description: LIST_DESCRIPTION,
        tags: TAGS,
        querystring: ListEventLogQuerySchema,
        response: { 200: EventLogListResponseSchema },
      },
    },
    async (request) => eventLog.listEventLog(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/event-log/:id',
    {
      config: READ,
      schema: {
        operationId: 'eventLog.get',
        summary: 'One event of the log',
        description:
          'The envelope of one event of the organization, as delivered to webhooks, with its `sequence`. 404 ' +
          'when the id is unknown, of another organization or past the retention.',
        tags: TAGS,
        params: EventIdParamsSchema,
        response: { 200: EventLogEntryResponseSchema },
      },
    },
    async (request) => eventLog.getLoggedEvent(db, callerOf(request), request.params.id),
  );
};
