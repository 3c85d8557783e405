import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  AnalyticsAcceptedResponseSchema,
  AnalyticsReportQuerySchema,
  AnalyticsReportResponseSchema,
  RecordAnalyticsEventBodySchema,
} from './analytics.schema.ts';
import * as analytics from './analytics.service.ts';
import { AnalyticsWriter } from './analytics.writer.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** This app's analytics batch writer: `await app.analytics.flush()` writes what is buffered. */
    analytics: AnalyticsWriter;
  }
}

const routes: FastifyPluginAsyncTypebox<analytics.AnalyticsDeps> = async (app, deps) => {
  app.post(
    '/v1/events',
    {
      config: { auth: { scope: 'events:write', keyTypes: ANY_KEY, write: true } },
      schema: {
        operationId: 'analytics.events.create',
        summary: 'Record a portal analytics event',
        description:
          'Checks `type` and `propertyId` (a property published on the portal) and answers at once; the event is ' +
          'stored within about a second, in a batch. The response does not confirm storage.',
        tags: ['Analytics'],
        body: RecordAnalyticsEventBodySchema,
        response: { 200: AnalyticsAcceptedResponseSchema },
      },
    },
    async (request) => {
      await analytics.acceptEvent(deps, callerOf(request), request.body);
      return { data: { success: true as const } };
    },
  );

  app.get(
    '/admin/v1/organizations/:orgId/analytics',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.analytics.get',
        summary: "The organization's portal analytics per day, type and property",
        description:
          `Daily aggregates over UTC days \`from\`..\`to\` (inclusive; default the last 30 days, at most ` +
          `${analytics.MAX_REPORT_DAYS}): totals per type, counts per day and type, and the top 50 ` +
          '(property, type) pairs. Events are counted within about a second of being accepted.',
        tags: ['Admin'],
        params: OrganizationIdParamsSchema,
        querystring: AnalyticsReportQuerySchema,
        response: { 200: AnalyticsReportResponseSchema },
      },
    },
    async (request) => ({
      data: await analytics.getAnalyticsReport(deps.db, callerOf(request), request.query),
    }),
  );
};

/**
 * Portal analytics: POST /v1/events and the admin report. The writer belongs to the app: it is
 * decorated on the app (hence `skip-override`, which lifts the decoration out of this plugin's
 * scope; the routes stay in their own encapsulated child) and drained by the app's onClose, which
 * runs before server.ts closes the database, so a clean stop loses nothing.
 */
export const analyticsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = Object.assign(
  async (app: Parameters<FastifyPluginAsyncTypebox>[0], { db }: { db: Database }) => {
    const writer = new AnalyticsWriter(db, app.log.child({ feature: 'analytics' }));
    app.decorate('analytics', writer);
    app.addHook('onClose', () => writer.close());
    await app.register(routes, { db, writer, knownProperties: new analytics.KnownProperties() });
  },
  { [Symbol.for('skip-override')]: true },
);
