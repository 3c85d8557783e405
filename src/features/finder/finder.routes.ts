import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { FinderBodySchema, FinderResponseSchema } from './finder.schema.ts';
import { submitFinder } from './finder.submit.ts';

/** The guided property finder (POST /v1/finder). */
export const finderRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/v1/finder',
    {
      config: { auth: { scope: 'finder:write', keyTypes: ANY_KEY, write: true } },
      schema: {
        operationId: 'finder.submit',
        summary: 'Find the published properties that best fit what a person looks for',
        description:
          'Scores every published listing against the criteria given (weights, partial matches and a ' +
          'worked example in docs/finder.md) and answers the best 12 with a per-criterion breakdown, ' +
          'plus how many listings match in all. The person is saved as a contact (by phone, then email) ' +
          'and the search is kept, with `subscribedToAlerts`. Counts a FINDER_SUBMIT portal analytics event ' +
          'and records `finder.submitted`.',
        tags: ['Finder'],
        body: FinderBodySchema,
        response: { 201: FinderResponseSchema },
      },
    },
    async (request, reply) => {
      const result = await submitFinder(db, callerOf(request), request.body);
      return reply.code(201).send({ data: result });
    },
  );
};
