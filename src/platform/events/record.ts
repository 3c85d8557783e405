import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { newId } from '../ids/ids.ts';
import { eventCatalog, type Actor } from './catalog.ts';

/**
 * A webhook delivery id for an event id (SQL): `whd_`, the event id's 9 time characters, 13 random
 * hex ones (the same id format as everywhere).
 */
export const deliveryIdFor = (eventId: SQL) =>
  sql`'whd_' || substr(${eventId}, 5, 9) || substr(replace(gen_random_uuid()::text, '-', ''), 1, 13)`;

/** The stored event as integrators receive it (SPEC.md "Event delivery envelope", without `event`). */
export interface EventEnvelope {
  id: string;
  type: string;
  timestamp: string;
  organizationId: string;
  livemode: boolean;
  actor: Actor;
  data: Record<string, unknown>;
}

/**
 * Records an event inside the caller's tenant transaction, so it commits or rolls back with the
 * change that caused it. The organization and `livemode` come from the transaction's tenant (a
 * test twin's events are `livemode: false`), never from the caller. Throws outside a tenant
 * transaction, for a type outside the catalog, or for a payload that breaks the type's schema.
 *
 * The same statement fans the event out to webhooks: one PENDING delivery per enabled subscription
 * of the organization whose patterns match (exact type, `object.*` or `*`), which the delivery
 * worker then picks up. `deliverTo` replaces that matching with one named subscription of the
 * organization (`webhook.test`).
 */
export async function recordEvent(
  tx: Tx,
  input: { type: string; data: Record<string, unknown>; actor: Actor; deliverTo?: string },
): Promise<EventEnvelope> {
  eventCatalog.check(input.type, input.data);
  const id = newId('evt');
  const objectPattern = `${input.type.slice(0, input.type.indexOf('.'))}.*`;
  const subscriptions =
    input.deliverTo === undefined
      ? sql`s.enabled AND s.event_types && ARRAY[${input.type}, ${objectPattern}, '*']::text[]`
      : sql`s.id = ${input.deliverTo}`;
  const rows = await queryRows<{ organization_id: string; livemode: boolean; created_at: string | Date }>(
    tx,
    sql`
    WITH event AS (
      INSERT INTO events (id, organization_id, type, livemode, actor, data, created_at)
      SELECT ${id}, o.id, ${input.type}, o.live_organization_id IS NULL,
             ${JSON.stringify(input.actor)}::jsonb, ${JSON.stringify(input.data)}::jsonb, now()
      FROM organizations o
      WHERE o.id = nullif(current_setting('app.organization_id', true), '')
      RETURNING id, organization_id, type, livemode, created_at
    ), fanned AS (
      INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, next_attempt_at)
      SELECT ${deliveryIdFor(sql`e.id`)}, e.organization_id, s.id, e.id, e.type, now()
      FROM event e
      JOIN webhook_subscriptions s ON s.organization_id = e.organization_id
      WHERE ${subscriptions}
    )
    SELECT organization_id, livemode, created_at FROM event`,
  );
  const row = rows[0];
  if (!row) throw new Error('recordEvent must run inside a tenant transaction');
  return {
    id,
    type: input.type,
    timestamp: new Date(row.created_at).toISOString(),
    organizationId: row.organization_id,
    livemode: row.livemode,
    actor: input.actor,
    data: input.data,
  };
}
