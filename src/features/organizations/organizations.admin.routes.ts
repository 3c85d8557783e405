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
        description:
          'Admin bearer token. Creates the live organization and its test twin (`testOrganizationId`) in ' +
          'one transaction; test-mode keys act on the twin. `defaultCountry` defaults to US, ' +
          "`defaultCurrency` to USD, and `writeLimitPerMinute` to null (the plan's limit). " +
          '`Idempotency-Key` is not honoured here (there is no organization to scope it to yet): a retry ' +
          'creates another organization.',
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
        description:
          'Admin bearer token. Live organizations only, newest first; each names its test twin in ' +
          '`testOrganizationId`. `plan` and `isActive` filter; paged (`pageSize` 20 by default, at most ' +
          '100).',
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
        description:
          'Admin bearer token. A live organization or a test twin (`livemode` false; `liveOrganizationId` ' +
          'names its live one), with `effectiveWriteLimitPerMinute` resolved from the plan. 404 for an ' +
          'unknown or malformed id.',
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
        description:
          'Admin bearer token. Only the fields sent change; `writeLimitPerMinute: null` goes back to the ' +
          "plan's limit. `isActive: false` makes every key of the organization and its twin answer 403, " +
          '`readOnly: true` makes every mutation answer 402; `defaultCountry` and `defaultCurrency` are ' +
          "copied to the twin. A test twin's id is a 400 (change its live organization); this process sees " +
          'the change at once, others within 2 seconds.',
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
