import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';

export const leadsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async () => {};
