import { sql } from 'drizzle-orm';
import {
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { events, tenantId } from './platform.ts';

// ---------------------------------------------------------------------------------------------
// Webhooks (issue 6). Glossary
// - subscription: a URL of the organization that receives the events matching its `event_types`
//   (exact `deal.won`, object wildcard `contact.*`, or `*`), signed with its secret.
// - delivery: one event for one subscription. The table is the queue itself: a worker claims due
//   PENDING rows with FOR UPDATE SKIP LOCKED and leases them (`locked_until`), so a crashed
//   worker's rows come back when the lease lapses. Deliveries are created in the transaction that
//   records the event (src/platform/events/record.ts).
// - attempt: one HTTP POST of a delivery, as the delivery log shows it.
// ---------------------------------------------------------------------------------------------

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const webhookSubscriptions = pgTable(
  'webhook_subscriptions',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    url: text('url').notNull(),
    eventTypes: text('event_types').array().notNull(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    /**
     * Signing secret (`whsec_…`), sealed with SECRETS_KEY (`enc:v1:…`, platform/crypto): every delivery
     * is signed with it, so it cannot be hashed (migration 0010, decision 0160).
     */
    secret: text('secret').notNull(),
    /** The secret before the last rotation, sealed too: it signs until `previous_secret_expires_at`. */
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    /** Why the service disabled it (GONE, FAILING); null when enabled or disabled by the owner. */
    disabledReason: text('disabled_reason'),
    /** Start of the current run of failed attempts; a success clears it. */
    failingSince: timestamp('failing_since', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    index('webhook_subscriptions_organization_id_created_at_idx').on(t.organizationId, t.createdAt, t.id),
  ],
);

export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    subscriptionId: text('subscription_id').notNull(),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status').$type<WebhookDeliveryStatus>().notNull().default('PENDING'),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** When the next attempt is due (PENDING only). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    /** Lease of the worker that claimed it; the row is claimable again once it has passed. */
    lockedUntil: timestamp('locked_until', { withTimezone: true, mode: 'date' }),
    /** Token of the current claim: a worker whose lease lapsed cannot overwrite a newer claim. */
    claimId: text('claim_id'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull().defaultNow(),
    updatedAt: updatedAt(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'webhook_deliveries_subscription_id_webhook_subscriptions_id_fk',
      columns: [t.organizationId, t.subscriptionId],
      foreignColumns: [webhookSubscriptions.organizationId, webhookSubscriptions.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'webhook_deliveries_event_id_events_id_fk',
      columns: [t.organizationId, t.eventId],
      foreignColumns: [events.organizationId, events.id],
    }).onDelete('cascade'),
    // The claim walks the subscriptions with PENDING rows and takes each one's due rows in order
    // (webhooks.store.ts claimDue): a subscription's backlog is never scanned to reach another's.
    index('webhook_deliveries_pending_idx')
      .on(t.subscriptionId, t.nextAttemptAt)
      .where(sql`status = 'PENDING'`),
    index('webhook_deliveries_subscription_id_created_at_idx').on(t.subscriptionId, t.createdAt.desc(), t.id),
    index('webhook_deliveries_subscription_id_status_idx').on(t.subscriptionId, t.status, t.createdAt.desc()),
    index('webhook_deliveries_subscription_id_event_type_idx').on(
      t.subscriptionId,
      t.eventType,
      t.createdAt.desc(),
    ),
    index('webhook_deliveries_event_id_idx').on(t.eventId),
    // The delivery log's retention purge (WEBHOOK_LOG_RETENTION_DAYS): finished rows, oldest first.
    index('webhook_deliveries_completed_at_idx').on(t.completedAt).where(sql`completed_at IS NOT NULL`),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    deliveryId: text('delivery_id').notNull(),
    /** The delivery's subscription, copied so the per-endpoint figures read one index range (0016). */
    subscriptionId: text('subscription_id').notNull(),
    attempt: integer('attempt').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date', precision: 3 }).notNull(),
    /** Null while the attempt is in flight, and for one whose worker stopped before writing it (0017). */
    durationMs: integer('duration_ms'),
    /** HTTP status of the answer; null when none came (network error, timeout, blocked address). */
    statusCode: integer('status_code'),
    error: text('error'),
    /** The first 2 KB of the answer's body. */
    responseBody: text('response_body'),
    /** The headers sent (content type, user agent, event id, timestamp, signatures); null before 0016. */
    requestHeaders: jsonb('request_headers').$type<Record<string, string>>(),
    /** The answer's headers, the first 30 and 4 KB at most; null when none came. */
    responseHeaders: jsonb('response_headers').$type<Record<string, string>>(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'webhook_attempts_delivery_id_webhook_deliveries_id_fk',
      columns: [t.organizationId, t.deliveryId],
      foreignColumns: [webhookDeliveries.organizationId, webhookDeliveries.id],
    }).onDelete('cascade'),
    // A delivery's attempts, the organization first like every key (the worker's claim counts them and
    // looks for lost ones; the delivery log lists them): migration 0020.
    index('webhook_attempts_organization_id_delivery_id_attempt_idx').on(t.organizationId, t.deliveryId, t.attempt),
    // The console's per-endpoint success rate and latency over the last 24 hours.
    index('webhook_attempts_subscription_id_started_at_idx').on(t.subscriptionId, t.startedAt),
  ],
);

export type WebhookSubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;
