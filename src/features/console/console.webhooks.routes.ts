import { Type } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { eventCatalog } from '../../platform/events/catalog.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { StringEnum } from '../../platform/http/schemas.ts';
import {
  CreateWebhookBodySchema,
  createSubscription,
  deleteSubscription,
  deliveryDetail,
  endpointStats,
  listDeliveries,
  ListDeliveriesQuerySchema,
  listSubscriptions,
  recoverDeliveries,
  RecoverBodySchema,
  retryDelivery,
  revealSecret,
  rotateSecret,
  RotateSecretBodySchema,
  sendTestEvent,
  updateSubscription,
  UpdateWebhookBodySchema,
  type UrlPolicy,
} from '../webhooks/index.ts';
import { CONSOLE, CONSOLE_WRITE, IdParams, ModePageQuery, ModeQuery } from './console.schema.ts';
import * as consoleService from './console.service.ts';

/**
 * The console's webhooks (issue 22, item 3): endpoints, secrets, the delivery log with every attempt,
 * resend and recover, and each endpoint's last 24 hours. Changes run as the console caller, so
 * the v1 services record them as events with the actor CONSOLE.
 */
export const consoleWebhookRoutes: FeaturePlugin = async (app, context) => {
  const { db, secrets, consoleSessions, config } = context;
  const deps: consoleService.ConsoleDeps = { db, consoleSessions, publicUrl: config.publicUrl };
  const urlPolicy: UrlPolicy = { allowPrivate: config.webhookAllowPrivateUrls, lookup: context.lookup };
  const caller = (request: FastifyRequest, mode: 'live' | 'test' | undefined) =>
    consoleService.consoleCallerIn(deps, callerOf(request), mode ?? 'live');

  // Webhooks -------------------------------------------------------------------------------------
  // The event-type picker: the catalog, with each type's description.
  app.get('/console/api/event-types', { config: CONSOLE, schema: { hide: true } }, async () => ({
    data: eventCatalog
      .list()
      .map((definition) => ({ type: definition.type, description: definition.description })),
  }));

  app.get(
    '/console/api/webhooks',
    { config: CONSOLE, schema: { hide: true, querystring: ModePageQuery } },
    async (request) =>
      listSubscriptions(db, await caller(request, request.query.mode), { pageSize: 100, ...request.query }),
  );

  app.post(
    '/console/api/webhooks',
    { config: CONSOLE_WRITE, schema: { hide: true, querystring: ModeQuery, body: CreateWebhookBodySchema } },
    async (request, reply) =>
      reply.code(201).send({
        data: await createSubscription(
          db,
          urlPolicy,
          secrets,
          await caller(request, request.query.mode),
          request.body,
        ),
      }),
  );

  app.patch(
    '/console/api/webhooks/:id',
    {
      config: CONSOLE_WRITE,
      schema: { hide: true, params: IdParams, querystring: ModeQuery, body: UpdateWebhookBodySchema },
    },
    async (request) => ({
      data: await updateSubscription(
        db,
        urlPolicy,
        await caller(request, request.query.mode),
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/console/api/webhooks/:id',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => ({
      data: await deleteSubscription(db, await caller(request, request.query.mode), request.params.id),
    }),
  );

  app.post(
    '/console/api/webhooks/:id/rotate-secret',
    {
      config: { ...CONSOLE, optionalBody: true },
      schema: { hide: true, params: IdParams, querystring: ModeQuery, body: RotateSecretBodySchema },
    },
    async (request) => ({
      data: await rotateSecret(
        db,
        secrets,
        await caller(request, request.query.mode),
        request.params.id,
        request.body.overlapHours,
      ),
    }),
  );

  // The signing secret on demand (the page asks for a confirmation first). A POST: it carries the
  // CSRF token, and a cross-site page cannot read it even through a form.
  app.post(
    '/console/api/webhooks/:id/reveal-secret',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => ({
      data: await revealSecret(db, secrets, await caller(request, request.query.mode), request.params.id),
    }),
  );

  // Success rate and latency of each endpoint of the organization over the last 24 hours.
  app.get(
    '/console/api/webhooks/stats',
    { config: CONSOLE, schema: { hide: true, querystring: ModeQuery } },
    async (request) => {
      const modeCaller = await caller(request, request.query.mode);
      const { data } = await listSubscriptions(db, modeCaller, { pageSize: 100 });
      return {
        data: await endpointStats(
          db,
          modeCaller,
          data.map((hook) => hook.id),
        ),
      };
    },
  );

  app.post(
    '/console/api/webhooks/:id/test',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request, reply) =>
      reply.code(201).send({
        data: await sendTestEvent(db, await caller(request, request.query.mode), request.params.id),
      }),
  );

  app.get(
    '/console/api/webhooks/:id/deliveries',
    {
      config: CONSOLE,
      schema: {
        hide: true,
        params: IdParams,
        querystring: Type.Object(
          {
            ...ListDeliveriesQuerySchema.properties,
            mode: Type.Optional(StringEnum(['live', 'test'] as const)),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { mode, ...query } = request.query;
      return listDeliveries(db, await caller(request, mode), request.params.id, query);
    },
  );

  // One delivery with every attempt's request and answer, and the body it POSTs.
  app.get(
    '/console/api/deliveries/:id',
    { config: CONSOLE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => ({
      data: await deliveryDetail(db, await caller(request, request.query.mode), request.params.id),
    }),
  );

  app.post(
    '/console/api/deliveries/:id/retry',
    { config: CONSOLE_WRITE, schema: { hide: true, params: IdParams, querystring: ModeQuery } },
    async (request) => ({
      data: await retryDelivery(db, await caller(request, request.query.mode), request.params.id),
    }),
  );

  app.post(
    '/console/api/webhooks/:id/recover',
    {
      config: CONSOLE_WRITE,
      schema: { hide: true, params: IdParams, querystring: ModeQuery, body: RecoverBodySchema },
    },
    async (request) => ({
      data: await recoverDeliveries(
        db,
        await caller(request, request.query.mode),
        request.params.id,
        request.body.since,
      ),
    }),
  );
};
