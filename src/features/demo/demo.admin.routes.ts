import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DemoSeedResponseSchema } from './demo.schema.ts';
import * as demo from './demo.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin'];

/** The operator's demo agency at /admin/v1/demo-seed (bearer ADMIN_TOKEN). */
export const demoAdminRoutes: FastifyPluginAsyncTypebox<demo.DemoDeps> = async (app, deps) => {
  app.post(
    '/admin/v1/demo-seed',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.demoSeed.create',
        summary: 'Create a demo agency with a publishable and a secret key',
        description:
          'Admin bearer token. Every call creates another "Demo Realty" agency (BUSINESS, Spain, EUR) with ' +
          'its test twin, and answers it with a publishable key and a secret key that has every scope and ' +
          'access level 3 (shown only here). The agency gets 4 agents (2 bookable), portal settings, 150 ' +
          'properties, a CRM and conversations; the twin gets the same agents, settings and properties ' +
          'with an empty CRM, and a failed step leaves nothing behind. `Idempotency-Key` is not honoured ' +
          'here: a retry seeds another agency.',
        tags: TAGS,
        response: { 201: DemoSeedResponseSchema },
      },
    },
    async (_request, reply) => reply.code(201).send({ data: await demo.seedDemo(deps) }),
  );
};
