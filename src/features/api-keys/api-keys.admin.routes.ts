import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeyResponseSchema,
  KeyIdParamsSchema,
  ListApiKeysQuerySchema,
  UpdateApiKeyBodySchema,
} from './api-keys.schema.ts';
import * as apiKeys from './api-keys.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin'];

/** The operator's API keys at /admin/v1 (bearer ADMIN_TOKEN, enforced by the auth plugin). */
export const apiKeysAdminRoutes: FastifyPluginAsyncTypebox<apiKeys.ApiKeysDeps> = async (app, deps) => {
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
      reply.code(201).send({ data: await apiKeys.createApiKey(deps, request.params.orgId, request.body) }),
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
    async (request) => apiKeys.listApiKeys(deps, request.params.orgId, request.query),
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
    async (request) => ({ data: await apiKeys.getApiKey(deps, request.params.keyId) }),
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
    async (request) => ({ data: await apiKeys.updateApiKey(deps, request.params.keyId, request.body) }),
  );
};
