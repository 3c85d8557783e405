import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  ApiKeyListResponseSchema,
  ApiKeyResponseSchema,
  CreateApiKeyBodySchema,
  CreatedApiKeyResponseSchema,
  KeyIdParamsSchema,
  ListApiKeysQuerySchema,
  RollApiKeyBodySchema,
  RolledApiKeyResponseSchema,
  UpdateApiKeyBodySchema,
} from './api-keys.schema.ts';
import * as apiKeys from './api-keys.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin'];

/** The operator's API keys at /admin/v1 (bearer ADMIN_TOKEN, enforced by the auth plugin). */
export const apiKeysAdminRoutes: FastifyPluginAsyncTypebox<apiKeys.ApiKeysDeps> = async (app, deps) => {
  /** The operator acting on the organization a key belongs to (404 for an unknown key). */
  const keyOperator = async (keyId: string) =>
    operatorCallerOf(deps.db, await apiKeys.apiKeyOrganizationId(deps, keyId));

  app.post(
    '/admin/v1/organizations/:orgId/api-keys',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.create',
        summary: 'Create an API key (the key is shown only in this response)',
        description:
          "Admin bearer token. `mode` defaults to live (test for a twin's id); a test key on a live " +
          'organization acts on its twin. Default scopes: publishable keys the five portal scopes, secret ' +
          'keys every scope but `contacts:write` and `webhooks:write`, read-only keys every `:read` scope; ' +
          '`accessLevel` 1. 400 naming the field for a key type the plan refuses, scopes outside the ' +
          "type's set, a level above 1 on a publishable key, writes on a read-only key, a past `expiresAt` " +
          'or an `agentId` that is not an agent of the organization the key acts on. Records ' +
          '`api_key.created`; send an `Idempotency-Key` to retry safely (a replay answers the same key).',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateApiKeyBodySchema,
        response: { 201: CreatedApiKeyResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await apiKeys.createApiKey(deps, callerOf(request), request.body),
      }),
  );

  app.get(
    '/admin/v1/organizations/:orgId/api-keys',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.list',
        summary: "List an organization's API keys (a live organization's list includes its test keys)",
        description:
          'Admin bearer token. Newest first, never the keys themselves (`keyPrefix` tells them apart). ' +
          "`status`, `type` and `mode` filter; a twin's id lists only the twin's keys. Paged (`pageSize` " +
          '20 by default, at most 100).',
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
        description:
          "Admin bearer token. The key's settings and state (never the key itself): type, mode, scopes, " +
          'access level, status, expiry, effective limits, bound agent and `lastUsedAt`. 404 for an ' +
          'unknown or malformed id.',
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
        description:
          'Admin bearer token. Only the fields sent change; null clears `name` and `expiresAt` and puts a ' +
          "limit back to the key type's default. Deactivation is final (400 for any other status " +
          'afterwards); a suspended key answers 403, a deactivated one 401. Takes effect in this process ' +
          'at once, in others within 2 seconds. Records `api_key.updated` with the names of the fields ' +
          'sent.',
        tags: TAGS,
        params: KeyIdParamsSchema,
        body: UpdateApiKeyBodySchema,
        response: { 200: ApiKeyResponseSchema },
      },
    },
    async (request) => ({
      data: await apiKeys.updateApiKey(
        deps,
        await keyOperator(request.params.keyId),
        request.params.keyId,
        request.body,
      ),
    }),
  );

  app.post(
    '/admin/v1/api-keys/:keyId/roll',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.apiKeys.roll',
        summary: 'Roll a key: a new key with the same settings, the old one valid for an overlap',
        description:
          "Admin bearer token. In one transaction: a new key with the old one's type, mode, " +
          'organization, name, scopes, access level, limits and agent (the full key is shown only in ' +
          'this response), and the old key set to expire after `overlapHours` (0-168, default 24; 0 = ' +
          'now; an earlier expiry it had stays). The new key keeps the old expiry when that is later ' +
          'than the overlap, else it has none. 409 for a deactivated or expired key (or a key type the ' +
          'plan no longer allows), 404 for an unknown one. Records `api_key.created` (new key) and ' +
          '`api_key.updated` with `changes: ["expiresAt"]` (old key). Send an `Idempotency-Key` to ' +
          'retry safely (a replay answers the same new key).',
        tags: TAGS,
        params: KeyIdParamsSchema,
        body: RollApiKeyBodySchema,
        response: { 201: RolledApiKeyResponseSchema },
      },
      // No {orgId} in the path: the auth hook cannot scope Idempotency-Key, so scope it here to the
      // organization the key acts on, before the idempotency claim (appended after this hook).
      preHandler: async (request) => {
        if (request.headers['idempotency-key'] === undefined) return;
        request.idempotencyScope = await apiKeys.apiKeyOrganizationId(deps, request.params.keyId);
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await apiKeys.rollApiKey(
          deps,
          await keyOperator(request.params.keyId),
          request.params.keyId,
          request.body,
        ),
      }),
  );
};
