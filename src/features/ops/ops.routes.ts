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
