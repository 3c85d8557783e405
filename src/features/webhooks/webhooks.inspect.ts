// What the developer console shows of an endpoint beyond the v1 answers (issue 22): the signing
// secret on demand, one delivery with the exact body it POSTs, and each endpoint's last 24 hours.
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { Database } from '../../db/database.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { envelopeOf } from '../../platform/events/envelope.ts';
import { isId } from '../../platform/ids/ids.ts';
import { secretContext } from './webhooks.secrets.ts';
import { loadSubscription, toDelivery } from './webhooks.service.ts';
import * as inspectStore from './webhooks.inspect.store.ts';
import * as store from './webhooks.store.ts';

/** The window of the per-endpoint figures. */
export const STATS_WINDOW_HOURS = 24;

/** The current signing secret in clear (and until when the previous one still signs). */
export async function revealSecret(db: Database, secrets: SecretBox, caller: Caller, id: string) {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const row = await loadSubscription(tx, organizationId, id);
    const overlap = row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date();
    return {
      id: row.id,
      secret: secrets.reveal(row.secret, secretContext(row.id)),
      previousSecretExpiresAt: overlap ? (row.previousSecretExpiresAt as Date).toISOString() : null,
    };
  });
}

/**
 * One delivery with every attempt, and the request body each attempt POSTed: the event's envelope,
 * serialized as the worker does (the same bytes on every attempt; after an erasure, the rewritten event).
 */
export async function deliveryDetail(db: Database, caller: Caller, deliveryId: string) {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const found = isId(deliveryId, 'whd')
      ? await inspectStore.deliveryWithEvent(tx, organizationId, deliveryId)
      : null;
    if (!found) throw Errors.notFound('Webhook delivery', deliveryId);
    const { delivery, event } = found;
    const subscription = await loadSubscription(tx, organizationId, delivery.subscriptionId);
    return {
      ...toDelivery(delivery, await store.attemptsOf(tx, [deliveryId])),
      url: subscription.url,
      requestBody: JSON.stringify(envelopeOf({ ...event, sequence: event.sequence ?? 0 })),
    };
  });
}

export interface EndpointStats {
  subscriptionId: string;
  windowHours: number;
  attempts: number;
  succeeded: number;
  /** Share of attempts answered 2xx (0-1); null without attempts. */
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Each subscription's attempts of the last 24 hours: success rate and latency (p50, p95). One query. */
export async function endpointStats(
  db: Database,
  caller: Caller,
  subscriptionIds: string[],
): Promise<EndpointStats[]> {
  const organizationId = caller.organization.id;
  const since = new Date(Date.now() - STATS_WINDOW_HOURS * 3_600_000);
  const rows = await writeAs(db, caller, (tx) =>
    inspectStore.attemptFigures(tx, organizationId, subscriptionIds, since),
  );
  const bySubscription = new Map(rows.map((row) => [row.subscription_id, row]));
  const ms = (value: number | string | null) => (value === null ? null : Math.round(Number(value)));
  return subscriptionIds.map((subscriptionId) => {
    const row = bySubscription.get(subscriptionId);
    const attempts = row?.attempts ?? 0;
    const succeeded = row?.succeeded ?? 0;
    return {
      subscriptionId,
      windowHours: STATS_WINDOW_HOURS,
      attempts,
      succeeded,
      successRate: attempts === 0 ? null : succeeded / attempts,
      p50Ms: ms(row?.p50 ?? null),
      p95Ms: ms(row?.p95 ?? null),
    };
  });
}
