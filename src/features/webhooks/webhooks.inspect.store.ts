import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { events, webhookDeliveries, type EventRow, type WebhookDeliveryRow } from '../../db/schema.ts';

/** A delivery and the event it carries (the row as the worker serializes it); read without locking. */
export async function deliveryWithEvent(
  tx: Tx,
  organizationId: string,
  deliveryId: string,
): Promise<{ delivery: WebhookDeliveryRow; event: EventRow } | null> {
  const rows = await tx
    .select({ delivery: webhookDeliveries, event: events })
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.organizationId, organizationId), eq(webhookDeliveries.id, deliveryId)))
    .limit(1);
  return rows[0] ?? null;
}

export interface AttemptFigures {
  subscription_id: string;
  attempts: number;
  succeeded: number;
  p50: number | null;
  p95: number | null;
}

/**
 * Attempts of these subscriptions since `since`, how many were answered 2xx and their latency
 * percentiles: one index range per subscription (webhook_attempts_subscription_id_started_at_idx).
 */
export async function attemptFigures(
  tx: Tx,
  organizationId: string,
  subscriptionIds: string[],
  since: Date,
): Promise<AttemptFigures[]> {
  if (subscriptionIds.length === 0) return [];
  return queryRows<AttemptFigures>(
    tx,
    sql`
    SELECT subscription_id, count(*)::int AS attempts,
           (count(*) FILTER (WHERE status_code BETWEEN 200 AND 299))::int AS succeeded,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY duration_ms) AS p50,
           percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
    FROM webhook_attempts
    WHERE organization_id = ${organizationId}
      AND subscription_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(subscriptionIds)}::jsonb))
      AND started_at >= ${since.toISOString()}::timestamptz
    GROUP BY subscription_id`,
  );
}
