import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';

export const analyticsRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async () => {};
