// Webhook subscriptions, signed deliveries with retries, the delivery log and the worker.
import { CONFIG_DEFAULTS } from '../../config.ts';
import { EXAMPLE_KEY } from '../../platform/http/openapi-examples.ts';
import { webhooksPersonalData } from './webhooks.personal-data.ts';
import { defineFeature, type JobContext, type StartContext } from '../../platform/features/manifest.ts';
import * as events from './webhooks.events.ts';
import { webhooksRoutes } from './webhooks.routes.ts';
import { webhooksSchemas } from './webhooks.schema.ts';
import { sealWebhookSecrets } from './webhooks.secrets.ts';
import { webhookMetrics } from './webhooks.metrics.ts';
import { purgeDeliveryLog } from './webhooks.retention.ts';
import { webhookDeliveryJob } from './webhooks.worker.ts';

export {
  createSubscription,
  deleteSubscription,
  eventDeliveries,
  listDeliveries,
  listSubscriptions,
  recoverDeliveries,
  retryDelivery,
  rotateSecret,
  sendTestEvent,
  updateSubscription,
} from './webhooks.service.ts';
export {
  CreateWebhookBodySchema,
  ListDeliveriesQuerySchema,
  RecoverBodySchema,
  RotateSecretBodySchema,
  UpdateWebhookBodySchema,
} from './webhooks.schema.ts';
export { deliveryDetail, endpointStats, revealSecret } from './webhooks.inspect.ts';
export { purgeDeliveryLog } from './webhooks.retention.ts';
export { deliveryAgents, type Lookup, type UrlPolicy } from './webhooks.ssrf.ts';

/** The webhooks feature's manifest (src/features.ts lists it). */
export const webhooksFeature = defineFeature({
  name: 'webhooks',
  personalData: webhooksPersonalData,
  scopes: [
    {
      name: 'webhooks:write',
      description: 'manages webhook subscriptions and their deliveries (support approval)',
      approval: true,
    },
  ],
  tags: [
    {
      name: 'Webhooks',
      description:
        'Subscriptions, the delivery log, replay and samples. Each event type is described under `webhooks` (receiver guide: docs/webhooks.md).',
    },
  ],
  examples: {
    ids: {
      subscriptionId: 'wh',
      eventId: 'evt',
    },
    schemaIds: {
      EventEnvelope: 'evt',
    },
    fields: {
      secret: `whsec_${EXAMPLE_KEY}`,
      eventType: 'deal.won',
      eventTypes: 'deal.won',
      lastError: 'HTTP 500 from the receiver',
      responseBody: '{"ok":true}',
    },
  },
  // A getter: the event-type enum is read from the catalog, which src/features.ts fills after this loads.
  get schemas() {
    return webhooksSchemas();
  },
  routes: [webhooksRoutes],
  events: [
    events.WebhookTest,
    events.WebhookDisabled,
    events.WebhookCreated,
    events.WebhookUpdated,
    events.WebhookDeleted,
    events.WebhookSecretRotated,
    events.WebhookDeliveryRetried,
    events.WebhookRecovered,
  ],
  jobs: ({ db, config, log, secrets }: JobContext) => [
    // Claims due rows of webhook_deliveries and POSTs them.
    webhookDeliveryJob(
      db,
      {
        webhookRetryDelaysMs: config.webhookRetryDelaysMs ?? CONFIG_DEFAULTS.webhookRetryDelaysMs,
        webhookTimeoutMs: config.webhookTimeoutMs ?? CONFIG_DEFAULTS.webhookTimeoutMs,
        webhookAllowPrivateUrls: config.webhookAllowPrivateUrls ?? CONFIG_DEFAULTS.webhookAllowPrivateUrls,
        webhookDisableAfterMs: config.webhookDisableAfterMs,
        secrets,
      },
      log,
    ),
    {
      // Finished deliveries past WEBHOOK_LOG_RETENTION_DAYS, with their attempts.
      name: 'webhooks.purge',
      intervalMs: 60 * 60_000,
      async run() {
        await purgeDeliveryLog(db, config.webhookLogRetentionDays ?? CONFIG_DEFAULTS.webhookLogRetentionDays);
      },
    },
  ],
  // Attempts and deliveries this process's worker made; the queue by state, read from the database.
  metrics: ({ db }) => webhookMetrics(db),
  // Signing secrets stored in clear by an earlier version, or under a previous SECRETS_KEY, are sealed again.
  atStart: async ({ db, secrets, log }: StartContext) => {
    const sealed = await sealWebhookSecrets(db, secrets);
    if (sealed > 0) log.info({ sealed }, 'webhook signing secrets sealed under the current SECRETS_KEY');
  },
});
