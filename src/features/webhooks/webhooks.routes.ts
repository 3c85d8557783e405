import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import type { RouteAuth } from '../../platform/http/route-config.ts';
import {
  CreateWebhookBodySchema,
  DeliveryIdParamsSchema,
  DeliveryListResponseSchema,
  DeliveryResponseSchema,
  BACKFILL_PER_SECOND,
  ListDeliveriesQuerySchema,
  MAX_RECOVER,
  MAX_SUBSCRIPTIONS,
  RecoverBodySchema,
  RecoverResponseSchema,
  RotateSecretBodySchema,
  SampleParamsSchema,
  SampleResponseSchema,
  TestEventResponseSchema,
  UpdateWebhookBodySchema,
  WebhookIdParamsSchema,
  WebhookListResponseSchema,
  WebhookResponseSchema,
  WebhookWithSecretResponseSchema,
} from './webhooks.schema.ts';
import { Type } from '@fastify/type-provider-typebox';
import { pageQuery } from '../../platform/http/pagination.ts';
import * as webhooks from './webhooks.service.ts';
import type { UrlPolicy } from './webhooks.ssrf.ts';
import { DeletedResponseSchema } from '../../platform/http/schemas.ts';

// Secret key, webhooks:write (support approval) and access level 3 on every webhook route (SPEC.md).
const auth = (write: boolean): { auth: RouteAuth } => ({
  auth: { scope: 'webhooks:write', keyTypes: ['secret'], accessLevel: 3, write },
});
const READ = auth(false);
const WRITE = auth(true);
const TAGS = ['Webhooks'];
const ListQuery = Type.Object(pageQuery(), { additionalProperties: false });

/** Subscriptions, the delivery log, replay and samples (docs/webhooks.md). */
export const webhooksRoutes: FeaturePlugin = async (app, context) => {
  const { db } = context;
  const urlPolicy: UrlPolicy = {
    allowPrivate: context.config.webhookAllowPrivateUrls,
    lookup: context.lookup,
  };

  app.post(
    '/v1/webhooks',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.create',
        summary: 'Subscribe a URL to events',
        description:
          '`eventTypes`: exact catalog types (`deal.won`), object wildcards (`contact.*`) or `*`; anything else is a ' +
          '400. The URL must be https and its host must resolve only to public addresses (400 otherwise). The ' +
          `signing \`secret\` is in this answer only. At most ${MAX_SUBSCRIPTIONS} subscriptions per organization (403).`,
        tags: TAGS,
        body: CreateWebhookBodySchema,
        response: { 201: WebhookWithSecretResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await webhooks.createSubscription(
          db,
          urlPolicy,
          context.secrets,
          callerOf(request),
          request.body,
        ),
      }),
  );

  app.get(
    '/v1/webhooks',
    {
      config: READ,
      schema: {
        operationId: 'webhooks.list',
        summary: "List the organization's webhook subscriptions",
        description: 'Oldest first. Never shows the secrets.',
        tags: TAGS,
        querystring: ListQuery,
        response: { 200: WebhookListResponseSchema },
      },
    },
    async (request) => webhooks.listSubscriptions(db, callerOf(request), request.query),
  );

  app.get(
    '/v1/webhooks/sample/:type',
    {
      config: READ,
      schema: {
        operationId: 'webhooks.sample',
        summary: 'A sample envelope of an event type',
        description:
          "The organization's last real event of that type (`meta.synthetic` false); if none, a synthetic " +
          'envelope with id `evt_sample` and the catalog field tree with null leaves (`meta.synthetic` true). ' +
          '404 for a type outside the catalog.',
        tags: TAGS,
        params: SampleParamsSchema,
        response: { 200: SampleResponseSchema },
      },
    },
    async (request) => webhooks.sample(db, callerOf(request), request.params.type),
  );

  app.get(
    '/v1/webhooks/:id',
    {
      config: READ,
      schema: {
        operationId: 'webhooks.get',
        summary: 'Get a webhook subscription',
        description:
          'Secret key with `webhooks:write` and access level 3, like every webhook route. The URL, event ' +
          'types and state: `enabled`, `disabledReason` when the service disabled it, and ' +
          '`previousSecretExpiresAt` while a rotated-out secret still signs. Never the secret. 404 when ' +
          'the id is malformed, unknown or of another organization (one answer for all three).',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        response: { 200: WebhookResponseSchema },
      },
    },
    async (request) => ({ data: await webhooks.getSubscription(db, callerOf(request), request.params.id) }),
  );

  app.patch(
    '/v1/webhooks/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.update',
        summary: 'Change a webhook subscription',
        description:
          'Any of `url` (checked like at creation), `eventTypes`, `description`, `enabled`. `enabled: true` ' +
          're-enables a subscription the service disabled and restarts its failure clock.',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        body: UpdateWebhookBodySchema,
        response: { 200: WebhookResponseSchema },
      },
    },
    async (request) => ({
      data: await webhooks.updateSubscription(
        db,
        urlPolicy,
        callerOf(request),
        request.params.id,
        request.body,
      ),
    }),
  );

  app.delete(
    '/v1/webhooks/:id',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.delete',
        summary: 'Delete a webhook subscription',
        description: 'Its delivery log goes with it; queued deliveries are not sent.',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await webhooks.deleteSubscription(db, callerOf(request), request.params.id),
    }),
  );

  app.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: { ...WRITE, optionalBody: true },
      schema: {
        operationId: 'webhooks.rotateSecret',
        summary: 'Rotate the signing secret',
        description:
          'Answers the new `secret` (shown only here). For `overlapHours` (24 by default, at most 168; 0 ends ' +
          'the old secret at once) deliveries carry two signatures, one per secret (two `v1=` values), so ' +
          'receivers switch over without losing any. The body may be omitted.',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        body: RotateSecretBodySchema,
        response: { 200: WebhookWithSecretResponseSchema },
      },
    },
    async (request) => ({
      data: await webhooks.rotateSecret(
        db,
        context.secrets,
        callerOf(request),
        request.params.id,
        request.body.overlapHours,
      ),
    }),
  );

  app.post(
    '/v1/webhooks/:id/test',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.test',
        summary: 'Send a test event',
        description:
          'Records a `webhook.test` event delivered to this subscription only, whatever its event types. 409 ' +
          'when the subscription is disabled.',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        response: { 202: TestEventResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(202).send({ data: await webhooks.sendTestEvent(db, callerOf(request), request.params.id) }),
  );

  app.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: READ,
      schema: {
        operationId: 'webhooks.deliveries',
        summary: 'The delivery log of a subscription',
        description:
          'Newest first, each with its attempts (status code, duration, error, first 2 KB of the answer). ' +
          'Filters: `status` (PENDING, SUCCEEDED, FAILED), `type` (exact event type), `since` (created at or after).',
        tags: TAGS,
        params: WebhookIdParamsSchema,
        querystring: ListDeliveriesQuerySchema,
        response: { 200: DeliveryListResponseSchema },
      },
    },
    async (request) => webhooks.listDeliveries(db, callerOf(request), request.params.id, request.query),
  );

  app.post(
    '/v1/webhooks/:id/recover',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.recover',
        summary: 'Backfill: queue every event since an instant that the subscription has not received',
        description:
          'Every event recorded at or after `since` that the subscription’s patterns match and that it has not ' +
          'received is queued, oldest first, with its original event id (receivers de-duplicate on it): its ' +
          'FAILED deliveries again with a fresh retry schedule (`retried`), and the events it never had a ' +
          'delivery for, recorded while it was disabled for example (`added`). Reaches back as far as the ' +
          'event log keeps events (EVENT_LOG_RETENTION_DAYS). Paced: the deliveries fall due ' +
          `${BACKFILL_PER_SECOND} per second, so live events keep flowing between them. At most ` +
          `${MAX_RECOVER} per call (\`hasMore\`: call again). 409 when the subscription is disabled.`,
        tags: TAGS,
        params: WebhookIdParamsSchema,
        body: RecoverBodySchema,
        response: { 202: RecoverResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(202).send({
        data: await webhooks.recoverDeliveries(db, callerOf(request), request.params.id, request.body.since),
      }),
  );

  app.post(
    '/v1/webhooks/deliveries/:deliveryId/retry',
    {
      config: WRITE,
      schema: {
        operationId: 'webhooks.retryDelivery',
        summary: 'Send a delivery again',
        description:
          'Queues a SUCCEEDED or FAILED delivery again with a fresh retry schedule: same event, same `id`, new ' +
          'signatures. 409 while it is still PENDING or when its subscription is disabled.',
        tags: TAGS,
        params: DeliveryIdParamsSchema,
        response: { 202: DeliveryResponseSchema },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send({ data: await webhooks.retryDelivery(db, callerOf(request), request.params.deliveryId) }),
  );
};
