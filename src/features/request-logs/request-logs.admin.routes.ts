import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import { ListRequestLogsQuerySchema, RequestLogListResponseSchema } from './request-logs.schema.ts';
import { listOrganizationRequestLogs } from './request-logs.service.ts';

/** The operator's view of an organization's request logs at /admin/v1 (bearer ADMIN_TOKEN). */
export const requestLogsAdminRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/admin/v1/organizations/:orgId/request-logs',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.requestLogs.list',
        summary: "List an organization's API requests (a live organization's list includes its test twin's)",
        description:
          'Admin bearer token. One line per /v1 and /mcp request made with one of its keys, newest first: ' +
          'request id, key, method, path (never the query string or body), operationId, MCP tool, status, ' +
          'error code and message (emails and phone numbers masked), latency and IP. Lines are written within ' +
          'about a second and kept REQUEST_LOG_RETENTION_DAYS (7 by default). `status` (`4xx` or `404`), ' +
          '`keyId`, `path` (prefix), `requestId`, `operationId`, `since`/`until` and `mode` filter; a ' +
          "twin's id lists only the twin's lines. Paged (`pageSize` 20 by default, at most 100). 404 for an " +
          'unknown organization.',
        tags: ['Admin'],
        params: OrganizationIdParamsSchema,
        querystring: ListRequestLogsQuerySchema,
        response: { 200: RequestLogListResponseSchema },
      },
    },
    async (request) => listOrganizationRequestLogs(db, request.params.orgId, request.query),
  );
};
