import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import { ImportPropertiesBodySchema, ImportResultResponseSchema } from './property-import.schema.ts';
import { importProperties } from './property-import.service.ts';

/** Bulk import of properties (admin), used by `agency-crm import properties`. */
export const propertiesImportRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  app.post(
    '/admin/v1/organizations/:orgId/properties/import',
    {
      config: { admin: true },
      schema: {
        operationId: 'admin.properties.import',
        summary: 'Create or replace up to 1000 properties by code',
        description:
          'Each row is a CreatePropertyBody, checked on its own: a bad row is reported in `errors` ' +
          '(index, field, reason) and the others are still imported. A new code creates a property; a known ' +
          'code replaces it with the row (absent fields take their defaults); an identical row is left ' +
          'unchanged, so importing the same file twice writes nothing. One transaction per request, with a ' +
          '`property.created` or `property.updated` event per written row. 200 even when rows failed.',
        tags: ['Admin: properties'],
        params: OrganizationIdParamsSchema,
        body: ImportPropertiesBodySchema,
        response: { 200: ImportResultResponseSchema },
      },
    },
    async (request) => ({
      data: await importProperties(db, callerOf(request), request.body.rows, {
        dryRun: request.body.dryRun,
      }),
    }),
  );
};
