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
        tags: TAGS,
        response: { 201: DemoSeedResponseSchema },
      },
    },
    async (_request, reply) => reply.code(201).send({ data: await demo.seedDemo(deps) }),
  );
};
