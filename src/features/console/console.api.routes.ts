import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { APPROVAL_SCOPES, MAX_SCOPES, ScopeNameSchema } from '../../platform/auth/scopes.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { StringEnum } from '../../platform/http/schemas.ts';
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  rollApiKey,
  RollApiKeyBodySchema,
  updateApiKey,
} from '../api-keys/index.ts';
import { listEventLog, ListEventLogQuerySchema } from '../event-log/index.ts';
import { listRequestLogs, ListRequestLogsQuerySchema } from '../request-logs/index.ts';
import { eventDeliveries } from '../webhooks/index.ts';
import { CONSOLE, CONSOLE_WRITE, IdParams, ModePageQuery, ModeQuery } from './console.schema.ts';
import * as consoleService from './console.service.ts';

const CreateKeyBody = Type.Object(
  {
    type: StringEnum(['publishable', 'secret', 'read_only_secret'] as const),
    mode: Type.Optional(StringEnum(['live', 'test'] as const)),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(Type.Array(ScopeNameSchema, { uniqueItems: true, maxItems: MAX_SCOPES })),
  },
  { additionalProperties: false },
);

/**
 * The console's own API (internal: hidden from the public document, validated like the rest): keys,
 * limits, request logs and events of the organization in live or test mode; webhooks are in
 * console.webhooks.routes.ts. Every route is `config.console`: the session cookie, and Origin plus
 * X-CSRF-Token on changes.
 */
export const consoleApiRoutes: FeaturePlugin = async (app, context) => {
  const { db, verifier, consoleSessions, config } = context;
  const deps: consoleService.ConsoleDeps = { db, consoleSessions, publicUrl: config.publicUrl };
  const keys = { db, verifier };
  const session = (request: FastifyRequest) => consoleService.consoleSessionOf(request);
  const caller = (request: FastifyRequest, mode: 'live' | 'test' | undefined) =>
    consoleService.consoleCallerIn(deps, callerOf(request), mode ?? 'live');
  const orgOf = async (request: FastifyRequest, mode: 'live' | 'test' | undefined) =>
    (await caller(request, mode)).organization.id;

  /** The session's caller on the organization of a key of its own (live or twin), else 404 as for any other id. */
  async function ownKey(request: FastifyRequest, keyId: string) {
    const key = await getApiKey(keys, keyId);
    const own = await caller(request, 'live');
    const twin = await consoleService.twinOf(deps, own.organization.id);
    if (key.organizationId !== own.organization.id && key.organizationId !== twin)
      throw Errors.notFound('API key', keyId);
    return key.organizationId === own.organization.id ? own : await caller(request, 'test');
  }

  // API keys -------------------------------------------------------------------------------------
  app.get(
    '/console/api/keys',
    { config: CONSOLE, schema: { hide: true, querystring: ModePageQuery } },
    async (request) =>
      listApiKeys(keys, session(request).organizationId, {
        mode: request.query.mode,
        page: request.query.page,
        pageSize: request.query.pageSize ?? 100,
      }),
  );

  app.post(
    '/console/api/keys',
    { config: CONSOLE_WRITE, schema: { hide: true, body: CreateKeyBody } },
    async (request, reply) => {
      const approval = (request.body.scopes ?? []).filter((scope) => APPROVAL_SCOPES.includes(scope));
      if (approval.length > 0)
        throw Errors.invalidField(
          'body.scopes',
          `${approval.join(', ')} need support approval: ask your operator`,
        );
      const created = await createApiKey(keys, callerOf(request), { ...request.body, accessLevel: 1 });
      return reply.code(201).send({ data: created });
    },
  );

  app.post(
    '/console/api/keys/:id/revoke',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams } },
    async (request) => {
      const owner = await ownKey(request, request.params.id);
      return { data: await updateApiKey(keys, owner, request.params.id, { status: 'deactivated' }) };
    },
  );

  // A new key with the same settings; the old one keeps working for the overlap, then expires.
  app.post(
    '/console/api/keys/:id/roll',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams, body: RollApiKeyBodySchema } },
    async (request, reply) => {
      const owner = await ownKey(request, request.params.id);
      return reply.code(201).send({ data: await rollApiKey(keys, owner, request.params.id, request.body) });
    },
  );

  // Limits ---------------------------------------------------------------------------------------
  // Live usage of every rate-limit policy: each active key of the mode, and the organization's writes.
  app.get(
    '/console/api/limits',
    { config: CONSOLE, schema: { hide: true, querystring: ModeQuery } },
    async (request) => {
      const mode = request.query.mode ?? 'live';
      const { data } = await listApiKeys(keys, session(request).organizationId, {
        mode,
        status: 'active',
        pageSize: 100,
      });
      return { data: await consoleService.limitUsage(app.rateLimits, await caller(request, mode), data) };
    },
  );

  // Request logs -----------------------------------------------------------------------------------
  // The session's organization in the chosen mode (test: its twin's lines), with the operator's filters.
  app.get(
    '/console/api/request-logs',
    { config: CONSOLE, schema: { hide: true, querystring: ListRequestLogsQuerySchema } },
    async (request) => {
      const organizationId = await orgOf(request, request.query.mode ?? 'live');
      const livemode = (request.query.mode ?? 'live') === 'live';
      return listRequestLogs(db, [{ id: organizationId, livemode }], request.query);
    },
  );

  // Events -----------------------------------------------------------------------------------------
  // The organization's event log (newest first by default here), and where each event was delivered.
  app.get(
    '/console/api/events',
    {
      config: CONSOLE,
      schema: {
        hide: true,
        querystring: Type.Object(
          {
            ...ListEventLogQuerySchema.properties,
            mode: Type.Optional(StringEnum(['live', 'test'] as const)),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { mode, ...query } = request.query;
      return listEventLog(db, await caller(request, mode), { order: 'desc', ...query });
    },
  );

  app.get(
    '/console/api/events/:id/deliveries',
    { config: CONSOLE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => eventDeliveries(db, await caller(request, request.query.mode), request.params.id),
  );
};
