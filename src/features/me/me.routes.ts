import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { principalOf } from '../../platform/auth/auth.plugin.ts';
import { ANY_KEY } from '../../platform/http/route-config.ts';
import { MeResponseSchema } from './me.schema.ts';
import { describeKey } from './me.service.ts';

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
    async (request) => ({ data: describeKey(principalOf(request)) }),
  );
};
