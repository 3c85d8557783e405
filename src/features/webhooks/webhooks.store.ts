import { and, asc, count, desc, eq, gte, inArray, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { deliveryIdFor } from '../../platform/events/record.ts';
import {
  events,
  webhookAttempts,
  webhookDeliveries,
  webhookSubscriptions,
  type EventRow,
  type WebhookAttemptRow,
  type WebhookDeliveryRow,
  type WebhookDeliveryStatus,
  type WebhookSubscriptionRow,
} from '../../db/schema.ts';

export type NewSubscription = typeof webhookSubscriptions.$inferInsert;

// --- subscriptions ----------------------------------------------------------------------------

export async function insertSubscription(tx: Tx, row: NewSubscription): Promise<WebhookSubscriptionRow> {
  const rows = await tx.insert(webhookSubscriptions).values(row).returning();
  return rows[0] as WebhookSubscriptionRow;
}

export async function countSubscriptions(tx: Tx, organizationId: string): Promise<number> {
  const rows = await tx
    .select({ total: count() })
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.organizationId, organizationId));
  return Number(rows[0]?.total ?? 0);
}

export async function findSubscription(
  tx: Tx,
  organizationId: string,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<WebhookSubscriptionRow | null> {
  const query = tx
    .select()
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.organizationId, organizationId), eq(webhookSubscriptions.id, id)))
    .limit(1);
  const rows = options.forUpdate ? await query.for('update') : await query;
  return rows[0] ?? null;
}

export async function listSubscriptions(
  tx: Tx,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ items: WebhookSubscriptionRow[]; total: number }> {
  const where = eq(webhookSubscriptions.organizationId, organizationId);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(webhookSubscriptions)
      .where(where)
      .orderBy(asc(webhookSubscriptions.createdAt), asc(webhookSubscriptions.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(webhookSubscriptions).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function updateSubscription(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewSubscription>,
): Promise<WebhookSubscriptionRow | null> {
  const rows = await tx
    .update(webhookSubscriptions)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(webhookSubscriptions.organizationId, organizationId), eq(webhookSubscriptions.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteSubscription(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  const rows = await tx
    .delete(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.organizationId, organizationId), eq(webhookSubscriptions.id, id)))
    .returning({ id: webhookSubscriptions.id });
  return rows.length > 0;
}

// --- deliveries and attempts (API side) -------------------------------------------------------

export interface DeliveryFilter {
  status?: WebhookDeliveryStatus;
  type?: string;
  since?: Date;
}

/** One page of a subscription's deliveries, newest first; each filter has its index. */
export async function listDeliveries(
  tx: Tx,
  organizationId: string,
  subscriptionId: string,
  filter: DeliveryFilter,
  page: { limit: number; offset: number },
): Promise<{ items: WebhookDeliveryRow[]; total: number }> {
  const where: SQL[] = [
    eq(webhookDeliveries.organizationId, organizationId),
    eq(webhookDeliveries.subscriptionId, subscriptionId),
  ];
  if (filter.status !== undefined) where.push(eq(webhookDeliveries.status, filter.status));
  if (filter.type !== undefined) where.push(eq(webhookDeliveries.eventType, filter.type));
  if (filter.since !== undefined) where.push(gte(webhookDeliveries.createdAt, filter.since));
  const condition = and(...where);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(webhookDeliveries)
      .where(condition)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(webhookDeliveries).where(condition),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

/** The attempts of several deliveries in one query, oldest first. */
export async function attemptsOf(tx: Tx, deliveryIds: string[]): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return tx
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(asc(webhookAttempts.deliveryId), asc(webhookAttempts.attempt));
}

export async function findDelivery(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<WebhookDeliveryRow | null> {
  const rows = await tx
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)))
    .limit(1)
    .for('update');
  return rows[0] ?? null;
}

export async function findDeliveryOfEvent(tx: Tx, eventId: string): Promise<WebhookDeliveryRow | null> {
  const rows = await tx
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.eventId, eventId))
    .limit(1);
  return rows[0] ?? null;
}

/** Queues a delivery again from its first attempt (replay); the log keeps the earlier attempts. */
export async function requeueDelivery(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<WebhookDeliveryRow> {
  const rows = await tx
    .update(webhookDeliveries)
    .set({
      status: 'PENDING',
      attemptCount: 0,
      nextAttemptAt: sql`now()`,
      lockedUntil: null,
      claimId: null,
      completedAt: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, id)))
    .returning();
  return rows[0] as WebhookDeliveryRow;
}

/**
 * Backfill (`recover`): queues every event of the organization since `since`, oldest first, that the
 * subscription has not received: its FAILED deliveries go back to PENDING with a fresh schedule, and
 * events it never got a delivery for (recorded while it was disabled, or before it matched) get
 * one, with the original event id. At most `limit` per call. Due times are spaced `spacingMs` apart
 * so that live deliveries (due now) pass between them instead of queueing behind a long backlog.
 */
export async function backfillSince(
  tx: Tx,
  organizationId: string,
  subscriptionId: string,
  options: { since: Date; limit: number; spacingMs: number },
): Promise<{ retried: number; added: number; hasMore: boolean }> {
  const rows = await queryRows<{
    retried: string | number;
    added: string | number;
    candidates: string | number;
  }>(
    tx,
    sql`
    WITH subscription AS (
      SELECT id, event_types FROM webhook_subscriptions
      WHERE organization_id = ${organizationId} AND id = ${subscriptionId}
    ), candidates AS (
      SELECT e.id AS event_id, e.type, e.sequence,
             (SELECT d.id FROM webhook_deliveries d
              WHERE d.event_id = e.id AND d.subscription_id = s.id AND d.status = 'FAILED'
              ORDER BY d.created_at DESC LIMIT 1) AS failed_id,
             s.id AS subscription_id
      FROM subscription s
      JOIN events e ON e.organization_id = ${organizationId}
      WHERE e.created_at >= ${options.since.toISOString()}::timestamptz AND e.sequence IS NOT NULL
        AND NOT EXISTS (
          SELECT 1 FROM webhook_deliveries d
          WHERE d.event_id = e.id AND d.subscription_id = s.id AND d.status IN ('PENDING', 'SUCCEEDED')
        )
        AND (
          EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.subscription_id = s.id)
          OR (e.type <> 'webhook.test'
              AND s.event_types && ARRAY[e.type, split_part(e.type, '.', 1) || '.*', '*']::text[])
        )
      ORDER BY e.sequence
      LIMIT ${options.limit + 1}
    ), numbered AS (
      SELECT c.*, row_number() OVER (ORDER BY c.sequence) - 1 AS position
      FROM candidates c ORDER BY c.sequence LIMIT ${options.limit}
    ), retried AS (
      UPDATE webhook_deliveries d
      SET status = 'PENDING', attempt_count = 0,
          next_attempt_at = now() + n.position * ${options.spacingMs} * interval '1 millisecond',
          locked_until = NULL, claim_id = NULL, completed_at = NULL, updated_at = now()
      FROM numbered n WHERE d.id = n.failed_id
      RETURNING d.id
    ), added AS (
      INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, next_attempt_at)
      SELECT ${deliveryIdFor(sql`n.event_id`)}, ${organizationId}, n.subscription_id, n.event_id, n.type,
             now() + n.position * ${options.spacingMs} * interval '1 millisecond'
      FROM numbered n WHERE n.failed_id IS NULL
      RETURNING id
    )
    SELECT (SELECT count(*) FROM retried) AS retried, (SELECT count(*) FROM added) AS added,
           (SELECT count(*) FROM candidates) AS candidates`,
  );
  const row = rows[0];
  return {
    retried: Number(row?.retried ?? 0),
    added: Number(row?.added ?? 0),
    hasMore: Number(row?.candidates ?? 0) > options.limit,
  };
}

export async function lastEventOfType(
  tx: Tx,
  organizationId: string,
  type: string,
): Promise<EventRow | null> {
  const rows = await tx
    .select()
    .from(events)
    .where(and(eq(events.organizationId, organizationId), eq(events.type, type)))
    .orderBy(desc(events.createdAt))
    .limit(1);
  return rows[0] ?? null;
}

// --- secrets at rest (start step, across tenants) ---------------------------------------------

export interface StoredSecrets {
  id: string;
  secret: string;
  previousSecret: string | null;
}

/**
 * Up to `limit` subscriptions with a secret to seal again: plaintext left by an earlier version, or
 * sealed under one of `oldKeyIds` (SECRETS_KEY_PREVIOUS).
 */
export async function findSecretsToSeal(
  tx: Tx,
  oldKeyIds: readonly string[],
  limit: number,
): Promise<StoredSecrets[]> {
  const stale = (column: SQL) =>
    sql`(left(${column}, 7) <> 'enc:v1:' OR substr(${column}, 8, 8) = ANY(string_to_array(${oldKeyIds.join(',')}, ',')))`;
  const rows = await queryRows<{ id: string; secret: string; previous_secret: string | null }>(
    tx,
    sql`
    SELECT id, secret, previous_secret FROM webhook_subscriptions
    WHERE ${stale(sql`secret`)} OR (previous_secret IS NOT NULL AND ${stale(sql`previous_secret`)})
    ORDER BY id
    LIMIT ${limit}`,
  );
  return rows.map((row) => ({ id: row.id, secret: row.secret, previousSecret: row.previous_secret }));
}

/** Writes a subscription's sealed secrets if they still are the ones read (a rotation meanwhile wins). */
export async function replaceSecrets(tx: Tx, before: StoredSecrets, after: StoredSecrets): Promise<void> {
  await tx.execute(sql`
    UPDATE webhook_subscriptions SET secret = ${after.secret}, previous_secret = ${after.previousSecret}
    WHERE id = ${before.id} AND secret = ${before.secret}
      AND previous_secret IS NOT DISTINCT FROM ${before.previousSecret}`);
}

/** The key ids that seal subscription secrets, with how many secrets each seals. */
export async function secretKeyIds(tx: Tx): Promise<{ keyId: string; secrets: number }[]> {
  const rows = await queryRows<{ key_id: string; n: number | string }>(
    tx,
    sql`
    SELECT substr(value, 8, 8) AS key_id, count(*) AS n
    FROM webhook_subscriptions, LATERAL (VALUES (secret), (previous_secret)) AS v(value)
    WHERE left(value, 7) = 'enc:v1:'
    GROUP BY 1 ORDER BY 1`,
  );
  return rows.map((row) => ({ keyId: row.key_id, secrets: Number(row.n) }));
}

/** Where one event was delivered: each subscription's delivery of it, with the endpoint's URL. */
export async function deliveriesOfEvent(
  tx: Tx,
  organizationId: string,
  eventId: string,
): Promise<{ id: string; subscriptionId: string; url: string; status: string; attemptCount: number }[]> {
  return tx
    .select({
      id: webhookDeliveries.id,
      subscriptionId: webhookDeliveries.subscriptionId,
      url: webhookSubscriptions.url,
      status: webhookDeliveries.status,
      attemptCount: webhookDeliveries.attemptCount,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookSubscriptions, eq(webhookSubscriptions.id, webhookDeliveries.subscriptionId))
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.eventId, eventId)))
    .orderBy(webhookDeliveries.createdAt);
}

/** True when the event is the organization's. */
export async function isEventOf(tx: Tx, organizationId: string, eventId: string): Promise<boolean> {
  const rows = await tx
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.organizationId, organizationId), eq(events.id, eventId)))
    .limit(1);
  return rows.length > 0;
}
