import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';

/** Bulk import of properties (admin), used by `agency-crm import properties`. */
export const propertiesImportRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async () => {};
