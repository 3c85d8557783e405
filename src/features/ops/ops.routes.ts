import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';

const StatusSchema = Type.Object({ status: Type.String() }, { additionalProperties: false });

/** Liveness and readiness for load balancers and orchestrators; no key needed. */
export const opsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: {
        operationId: 'ops.health',
        summary: 'Liveness: the process answers',
        description:
          'No key needed. 200 `{"status": "ok"}` whenever the process serves HTTP; it does not touch the ' +
          'database (GET /readyz does). For liveness checks of load balancers and orchestrators.',
        tags: ['Operations'],
        response: { 200: StatusSchema },
      },
    },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        operationId: 'ops.ready',
        summary: 'Readiness: the database answers',
        description:
          'No key needed. 200 `{"status": "ready"}` when a query on the database succeeds; otherwise 503 ' +
          'SERVICE_UNAVAILABLE with `Retry-After: 2`, so an orchestrator takes the process out of rotation ' +
          'until the database is back.',
        tags: ['Operations'],
        response: { 200: StatusSchema, 503: ref(ErrorResponseSchema) },
      },
    },
    async () => {
      try {
        await db.ping();
      } catch (error) {
        throw Errors.databaseUnavailable(error);
      }
      return { status: 'ready' };
    },
  );
};
