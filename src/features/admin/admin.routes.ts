import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import {
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeyResponseSchema,
  CreateOrganizationBodySchema,
  DemoSeedResponseSchema,
  KeyIdParamsSchema,
  ListApiKeysQuerySchema,
  ListOrganizationsQuerySchema,
  OrganizationIdParamsSchema,
  OrganizationListResponseSchema,
  OrganizationResponseSchema,
  UpdateApiKeyBodySchema,
  UpdateOrganizationBodySchema,
} from './admin.schema.ts';
import * as admin from './admin.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin'];

/**
 * The operator's back office at /admin/v1 (bearer ADMIN_TOKEN, enforced by the auth plugin).
 * Routes under /organizations/{orgId}/ accept a test twin's id too, and honour Idempotency-Key
 * scoped to that organization.
 */
export const adminRoutes: FastifyPluginAsyncTypebox<admin.AdminDeps> = async (app, deps) => {
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
      reply.code(201).send({ data: await admin.createOrganization(deps, request.body) }),
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
    async (request) => admin.listOrganizations(deps, request.query),
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
    async (request) => ({ data: await admin.getOrganization(deps, request.params.orgId) }),
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
    async (request) => ({ data: await admin.updateOrganization(deps, request.params.orgId, request.body) }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/api-keys',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.create',
        summary: 'Create an API key (the key is shown only in this response)',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateApiKeyBodySchema,
        response: { 201: CreatedApiKeyResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await admin.createApiKey(deps, request.params.orgId, request.body) }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/api-keys',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.list',
        summary: "List an organization's API keys (a live organization's list includes its test keys)",
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: ListApiKeysQuerySchema,
        response: { 200: ApiKeyListResponseSchema },
      },
    },
    async (request) => admin.listApiKeys(deps, request.params.orgId, request.query),
  );

  app.get(
    '/admin/v1/api-keys/:keyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.get',
        summary: 'Get an API key',
        tags: TAGS,
        params: KeyIdParamsSchema,
        response: { 200: ApiKeyResponseSchema },
      },
    },
    async (request) => ({ data: await admin.getApiKey(deps, request.params.keyId) }),
  );

  app.patch(
    '/admin/v1/api-keys/:keyId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.update',
        summary: 'Suspend, reactivate or deactivate a key, or change its expiry, name or limits',
        tags: TAGS,
        params: KeyIdParamsSchema,
        body: UpdateApiKeyBodySchema,
        response: { 200: ApiKeyResponseSchema },
      },
    },
    async (request) => ({ data: await admin.updateApiKey(deps, request.params.keyId, request.body) }),
  );

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
    async (_request, reply) => reply.code(201).send({ data: await admin.seedDemo(deps) }),
  );
};
