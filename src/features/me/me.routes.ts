import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { MeResponseSchema, RateLimitsResponseSchema } from './me.schema.ts';
import { describeKey, describeRateLimits } from './me.service.ts';

export const meRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/me',
    {
      config: { auth: { scope: null, keyTypes: ANY_KEY, write: false } },
      schema: {
        operationId: 'me.get',
        summary: 'Describe the calling key',
        description:
          'Key id, organization, plan, scopes, key type, mode, access level and limits. Needs no scope.',
        tags: ['Introspection'],
        response: { 200: MeResponseSchema },
      },
    },
    async (request) => ({ data: describeKey(callerOf(request)) }),
  );

  app.get(
    '/v1/rate-limits',
    {
      config: { auth: { scope: null, keyTypes: ANY_KEY, write: false } },
      schema: {
        operationId: 'rateLimits.list',
        summary: 'The rate limits of the calling key, as they stand',
        description:
          'One item per policy that applies to the key, from the live counters (shared by every API process ' +
          'when Redis is configured): `key` (every request, this one included), `key-writes` and ' +
          '`organization-writes` (keys that may write). The same policies as the `RateLimit-Policy` header of ' +
          'every keyed answer. A write counts one point against both write policies; a batch ' +
          '(POST /v1/contacts/batch, POST /v1/usage/events/batch) one per 10 contacts or 50 usage events. ' +
          'Needs no scope.',
        tags: ['Introspection'],
        response: { 200: RateLimitsResponseSchema },
      },
    },
    async (request) => ({ data: await describeRateLimits(request.server.rateLimits, callerOf(request)) }),
  );
};
