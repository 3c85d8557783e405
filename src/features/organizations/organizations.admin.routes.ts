import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  CreateOrganizationBodySchema,
  ListOrganizationsQuerySchema,
  OrganizationListResponseSchema,
  OrganizationResponseSchema,
  UpdateOrganizationBodySchema,
} from './organizations.schema.ts';
import * as organizations from './organizations.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin'];

/**
 * The operator's organizations at /admin/v1 (bearer ADMIN_TOKEN, enforced by the auth plugin).
 * Routes under /organizations/{orgId}/ accept a test twin's id too, and honour Idempotency-Key
 * scoped to that organization.
 */
export const organizationsAdminRoutes: FastifyPluginAsyncTypebox<organizations.OrganizationsDeps> = async (
  app,
  deps,
) => {
  app.post(
    '/admin/v1/organizations',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.organizations.create',
        summary: 'Create an organization (and its test twin)',
        tags: TAGS,
        body: CreateOrganizationBodySchema,
        response: { 201: OrganizationResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await organizations.createOrganization(deps, request.body) }),
  );

  app.get(
    '/admin/v1/organizations',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.organizations.list',
        summary: 'List live organizations',
        tags: TAGS,
        querystring: ListOrganizationsQuerySchema,
        response: { 200: OrganizationListResponseSchema },
      },
    },
    async (request) => organizations.listOrganizations(deps, request.query),
  );

  app.get(
    '/admin/v1/organizations/:orgId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.organizations.get',
        summary: 'Get an organization (live or test twin)',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        response: { 200: OrganizationResponseSchema },
      },
    },
    async (request) => ({ data: await organizations.getOrganization(deps, request.params.orgId) }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.organizations.update',
        summary: 'Change plan, activity, read-only mode, limits or defaults',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: UpdateOrganizationBodySchema,
        response: { 200: OrganizationResponseSchema },
      },
    },
    async (request) => ({
      data: await organizations.updateOrganization(deps, request.params.orgId, request.body),
    }),
  );
};
