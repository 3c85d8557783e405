import { sql } from 'drizzle-orm';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookSubscriptionRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { actorOf } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { eventCatalog, fieldTree } from '../../platform/events/catalog.ts';
import { envelopeOf } from '../../platform/events/envelope.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import * as events from './webhooks.events.ts';
import {
  BACKFILL_PER_SECOND,
  MAX_RECOVER,
  MAX_SUBSCRIPTIONS,
  type CreateWebhookBody,
  type ListDeliveriesQuery,
  type UpdateWebhookBody,
  type WebhookDelivery,
  type WebhookSubscription,
  type WebhookSubscriptionWithSecret,
} from './webhooks.schema.ts';
import { newWebhookSecret } from './webhooks.signing.ts';
import { secretContext } from './webhooks.secrets.ts';
import { checkWebhookUrl, type UrlPolicy } from './webhooks.ssrf.ts';
import * as store from './webhooks.store.ts';

/** How long the secret before a rotation keeps signing alongside the new one, unless the call says. */
export const ROTATION_OVERLAP_HOURS = 24;

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

function toSubscription(row: WebhookSubscriptionRow): WebhookSubscription {
  const overlap = row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date();
  return {
    id: row.id,
    url: row.url,
    eventTypes: row.eventTypes,
    description: row.description,
    enabled: row.enabled,
    disabledReason: (row.disabledReason as WebhookSubscription['disabledReason']) ?? null,
    previousSecretExpiresAt: overlap ? iso(row.previousSecretExpiresAt) : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The answer of creation and rotation: the plaintext secret, which the row holds only sealed. */
function withSecret(row: WebhookSubscriptionRow, secret: string): WebhookSubscriptionWithSecret {
  return { ...toSubscription(row), secret };
}

/** The subscription as its events show it (never the secret). */
const eventSubscription = (row: WebhookSubscriptionRow) => ({
  id: row.id,
  url: row.url,
  eventTypes: row.eventTypes,
  description: row.description,
  enabled: row.enabled,
});

export function toDelivery(row: WebhookDeliveryRow, attempts: WebhookAttemptRow[]): WebhookDelivery {
  return {
    id: row.id,
    subscriptionId: row.subscriptionId,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === 'PENDING' ? iso(row.nextAttemptAt) : null,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    completedAt: iso(row.completedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.startedAt.toISOString(),
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
      responseBody: a.responseBody,
      requestHeaders: a.requestHeaders,
      responseHeaders: a.responseHeaders,
    })),
  };
}

export async function loadSubscription(
  tx: Tx,
  organizationId: string,
  id: string,
  forUpdate = false,
): Promise<WebhookSubscriptionRow> {
  const row = isId(id, 'wh') ? await store.findSubscription(tx, organizationId, id, { forUpdate }) : null;
  if (!row) throw Errors.notFound('Webhook subscription', id);
  return row;
}

/** POST /v1/webhooks: the URL and patterns checked, the secret made, stored sealed and returned once. */
export async function createSubscription(
  db: Database,
  policy: UrlPolicy,
  secrets: SecretBox,
  caller: Caller,
  body: CreateWebhookBody,
): Promise<WebhookSubscriptionWithSecret> {
  const organizationId = caller.organization.id;
  // The schema (WebhookEventTypePattern) checked the patterns against the catalog.
  const url = await checkWebhookUrl(body.url, policy);
  return writeAs(db, caller, async (tx) => {
    // Serialises concurrent creations of one organization, so the cap holds.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('webhooks:' || ${organizationId}))`);
    if ((await store.countSubscriptions(tx, organizationId)) >= MAX_SUBSCRIPTIONS) {
      throw Errors.forbidden(
        `An organization may have at most ${MAX_SUBSCRIPTIONS} webhook subscriptions; delete one first`,
      );
    }
    const id = newId('wh');
    const secret = newWebhookSecret();
    const values = {
      id,
      url,
      eventTypes: body.eventTypes,
      description: body.description ?? '',
      enabled: true,
    };
    // Recorded first: a subscription is not sent the event of its own creation (nor of its deletion).
    await recordEvent(tx, {
      type: events.WebhookCreated.type,
      data: { subscription: values },
      actor: actorOf(caller),
    });
    const row = await store.insertSubscription(tx, {
      ...values,
      organizationId,
      secret: secrets.seal(secret, secretContext(id)),
    });
    return withSecret(row, secret);
  });
}

export async function listSubscriptions(
  db: Database,
  caller: Caller,
  query: { page?: number; pageSize?: number },
): Promise<{ data: WebhookSubscription[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return writeAs(db, caller, async (tx) => {
    const { items, total } = await store.listSubscriptions(tx, organizationId, page);
    return { data: items.map(toSubscription), meta: pageMeta(total, page) };
  });
}

export async function getSubscription(db: Database, caller: Caller, id: string) {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => toSubscription(await loadSubscription(tx, organizationId, id)));
}

/** PATCH: url (checked again), patterns, description, enabled (true clears the service's reason). */
export async function updateSubscription(
  db: Database,
  policy: UrlPolicy,
  caller: Caller,
  id: string,
  body: UpdateWebhookBody,
): Promise<WebhookSubscription> {
  const organizationId = caller.organization.id;
  const url = body.url === undefined ? undefined : await checkWebhookUrl(body.url, policy);
  return writeAs(db, caller, async (tx) => {
    await loadSubscription(tx, organizationId, id, true);
    const changes: Partial<store.NewSubscription> = {};
    if (url !== undefined) changes.url = url;
    if (body.eventTypes !== undefined) changes.eventTypes = body.eventTypes;
    if (body.description !== undefined) changes.description = body.description;
    if (body.enabled !== undefined) {
      changes.enabled = body.enabled;
      changes.disabledReason = null;
      if (body.enabled) changes.failingSince = null;
    }
    const row = await store.updateSubscription(tx, organizationId, id, changes);
    if (!row) throw Errors.notFound('Webhook subscription', id);
    await recordEvent(tx, {
      type: events.WebhookUpdated.type,
      data: { subscription: eventSubscription(row), changes: Object.keys(body).sort() },
      actor: actorOf(caller),
    });
    return toSubscription(row);
  });
}

/** DELETE: the subscription and its delivery log go; queued deliveries are not sent. */
export async function deleteSubscription(db: Database, caller: Caller, id: string) {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const row = await loadSubscription(tx, organizationId, id, true);
    await store.deleteSubscription(tx, organizationId, id);
    // Recorded after the delete: the event is not queued for the subscription it is about.
    await recordEvent(tx, {
      type: events.WebhookDeleted.type,
      data: { subscription: eventSubscription(row) },
      actor: actorOf(caller),
    });
    return { id, deleted: true as const };
  });
}

/**
 * A new secret, returned once; the old one keeps signing (a second `v1=`) for `overlapHours` (24 by
 * default; 0 ends it at once).
 */
export async function rotateSecret(
  db: Database,
  secrets: SecretBox,
  caller: Caller,
  id: string,
  overlapHours = ROTATION_OVERLAP_HOURS,
): Promise<WebhookSubscriptionWithSecret> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const current = await loadSubscription(tx, organizationId, id, true);
    const context = secretContext(id);
    const secret = newWebhookSecret();
    const row = await store.updateSubscription(tx, organizationId, id, {
      secret: secrets.seal(secret, context),
      // Sealed again: a row from an earlier version holds the old secret in clear.
      previousSecret: secrets.seal(secrets.reveal(current.secret, context), context),
      previousSecretExpiresAt: overlapHours > 0 ? new Date(Date.now() + overlapHours * 3_600_000) : null,
      ...(overlapHours > 0 ? {} : { previousSecret: null }),
    });
    const rotated = row as WebhookSubscriptionRow;
    await recordEvent(tx, {
      type: events.WebhookSecretRotated.type,
      data: {
        subscription: eventSubscription(rotated),
        previousSecretExpiresAt: iso(rotated.previousSecretExpiresAt),
      },
      actor: actorOf(caller),
    });
    return withSecret(rotated, secret);
  });
}

/** Records a `webhook.test` event delivered to this subscription only (even when it is disabled: 409). */
export async function sendTestEvent(
  db: Database,
  caller: Caller,
  id: string,
): Promise<{ eventId: string; deliveryId: string }> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const row = await loadSubscription(tx, organizationId, id);
    if (!row.enabled) throw Errors.duplicate('This webhook subscription is disabled: enable it first');
    const event = await recordEvent(tx, {
      type: events.WebhookTest.type,
      data: { subscription: { id: row.id, url: row.url }, message: 'This is a test event from agency-crm.' },
      actor: actorOf(caller),
      deliverTo: row.id,
    });
    const delivery = await store.findDeliveryOfEvent(tx, event.id);
    return { eventId: event.id, deliveryId: (delivery as WebhookDeliveryRow).id };
  });
}

export async function listDeliveries(
  db: Database,
  caller: Caller,
  subscriptionId: string,
  query: ListDeliveriesQuery,
): Promise<{ data: WebhookDelivery[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return writeAs(db, caller, async (tx) => {
    await loadSubscription(tx, organizationId, subscriptionId);
    const filter: store.DeliveryFilter = { status: query.status, type: query.type };
    if (query.since !== undefined) filter.since = new Date(query.since);
    const { items, total } = await store.listDeliveries(tx, organizationId, subscriptionId, filter, page);
    const attempts = await store.attemptsOf(
      tx,
      items.map((item) => item.id),
    );
    const byDelivery = new Map<string, WebhookAttemptRow[]>();
    for (const attempt of attempts) {
      const list = byDelivery.get(attempt.deliveryId) ?? [];
      list.push(attempt);
      byDelivery.set(attempt.deliveryId, list);
    }
    return {
      data: items.map((item) => toDelivery(item, byDelivery.get(item.id) ?? [])),
      meta: pageMeta(total, page),
    };
  });
}

/** Queues a delivery again (any status but PENDING), with a fresh retry schedule. */
export async function retryDelivery(
  db: Database,
  caller: Caller,
  deliveryId: string,
): Promise<WebhookDelivery> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const row = isId(deliveryId, 'whd') ? await store.findDelivery(tx, organizationId, deliveryId) : null;
    if (!row) throw Errors.notFound('Webhook delivery', deliveryId);
    if (row.status === 'PENDING') throw Errors.duplicate('This delivery is already queued');
    const subscription = await loadSubscription(tx, organizationId, row.subscriptionId);
    if (!subscription.enabled)
      throw Errors.duplicate('Its webhook subscription is disabled: enable it first');
    const queued = await store.requeueDelivery(tx, organizationId, deliveryId);
    await recordEvent(tx, {
      type: events.WebhookDeliveryRetried.type,
      data: {
        subscription: { id: subscription.id, url: subscription.url },
        delivery: { id: row.id, eventId: row.eventId, eventType: row.eventType },
      },
      actor: actorOf(caller),
    });
    return toDelivery(queued, await store.attemptsOf(tx, [deliveryId]));
  });
}

/**
 * Backfill (Svix "recover", extended to the event log): queues every event since `since` that the
 * subscription's patterns match and it has not received, failed ones and missed ones alike, paced.
 */
export async function recoverDeliveries(
  db: Database,
  caller: Caller,
  subscriptionId: string,
  since: string,
): Promise<{ requeued: number; retried: number; added: number; hasMore: boolean }> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const subscription = await loadSubscription(tx, organizationId, subscriptionId);
    if (!subscription.enabled)
      throw Errors.duplicate('This webhook subscription is disabled: enable it first');
    const spacingMs = Math.ceil(1000 / BACKFILL_PER_SECOND);
    const queued = await store.backfillSince(tx, organizationId, subscriptionId, {
      since: new Date(since),
      limit: MAX_RECOVER,
      spacingMs,
    });
    await recordEvent(tx, {
      type: events.WebhookRecovered.type,
      data: {
        subscription: { id: subscription.id, url: subscription.url },
        since: new Date(since).toISOString(),
        retried: queued.retried,
        added: queued.added,
      },
      actor: actorOf(caller),
    });
    return { requeued: queued.retried + queued.added, ...queued };
  });
}

/**
 * GET /v1/webhooks/sample/{type}: the organization's last real event of that type, or a synthetic
 * envelope (`evt_sample`, the catalog's field tree with null leaves, the key's livemode).
 */
export async function sample(db: Database, caller: Caller, type: string) {
  const definition = eventCatalog.get(type);
  if (!definition) throw Errors.notFound('Event type', type);
  const organizationId = caller.organization.id;
  const last = await writeAs(db, caller, (tx) => store.lastEventOfType(tx, organizationId, type));
  if (last?.sequence != null) {
    return {
      data: envelopeOf({ ...last, sequence: last.sequence }),
      meta: { synthetic: false },
    };
  }
  return {
    data: envelopeOf({
      id: 'evt_sample',
      type,
      createdAt: new Date(),
      organizationId,
      livemode: caller.organization.livemode,
      actor: { kind: null, userId: null },
      data: fieldTree(definition.schema) as Record<string, unknown>,
      sequence: 0,
    }),
    meta: { synthetic: true },
  };
}

/** The endpoints an event of the organization was delivered to, and how each delivery stands (404 otherwise). */
export async function eventDeliveries(db: Database, caller: Caller, eventId: string) {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    if (!isId(eventId, 'evt') || !(await store.isEventOf(tx, organizationId, eventId)))
      throw Errors.notFound('Event', eventId);
    return { data: await store.deliveriesOfEvent(tx, organizationId, eventId) };
  });
}
