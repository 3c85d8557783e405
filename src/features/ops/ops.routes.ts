import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';

const StatusSchema = Type.Object({ status: Type.String() }, { additionalProperties: false });

const ReplicaSchema = Type.Object(
  {
    name: Type.String({
      description: 'host:port/database of the replica',
      examples: ['10.0.0.12:5432/agency'],
    }),
    state: Type.Union(
      [Type.Literal('ok'), Type.Literal('lagging'), Type.Literal('down'), Type.Literal('starting')],
      {
        description:
          'ok: serves reads; lagging: further behind than DATABASE_READ_MAX_LAG_MS; down: does not answer, or is ' +
          'not a standby; starting: not measured yet',
      },
    ),
    lagMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: 'How far behind the primary it is, in milliseconds; null when down or not measured yet',
    }),
    reads: Type.Integer({ minimum: 0, description: 'Reads it has served since this process started' }),
    error: Type.Union([Type.String(), Type.Null()], { description: 'Why it is down' }),
  },
  { additionalProperties: false },
);

const ReadySchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('degraded')], {
      description:
        'degraded: a read replica is lagging or down (the primary serves its reads meanwhile), or a warning ' +
        'below asks for a setting',
    }),
    replicas: Type.Optional(
      Type.Array(ReplicaSchema, {
        description: 'Each read replica (DATABASE_READ_URL); absent without replicas',
      }),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'What the connection layer works around, in words an operator can act on (a pooler that drops ' +
          'prepared statements: set DATABASE_PREPARED_STATEMENTS=false); absent when nothing',
      }),
    ),
  },
  { additionalProperties: false },
);

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
          'until the database is back. With read replicas (DATABASE_READ_URL) it lists each one with its ' +
          'state and lag, and says `degraded` (still 200: the primary serves the reads) while one is ' +
          'lagging or down.',
        tags: ['Operations'],
        response: { 200: ReadySchema, 503: ref(ErrorResponseSchema) },
      },
    },
    async () => {
      try {
        await db.ping();
      } catch (error) {
        throw Errors.databaseUnavailable(error);
      }
      const replicas = db.replicaStatus();
      const warnings = db.warnings();
      const degraded = replicas.some((replica) => replica.state !== 'ok') || warnings.length > 0;
      return {
        status: degraded ? ('degraded' as const) : ('ready' as const),
        ...(replicas.length > 0 ? { replicas } : {}),
        ...(warnings.length > 0 ? { warnings: [...warnings] } : {}),
      };
    },
  );
};
