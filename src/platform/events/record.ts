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

/**
 * A timestamp as payloads show it (SQL, text): what `Date#toISOString` gives for the value the
 * drivers read, milliseconds truncated (`2026-11-02T10:15:00.123Z`), for payloads built in SQL.
 */
export const jsonTimestampSql = (value: SQL) =>
  sql`to_char(${value} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

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
 * The CTEs that record events inside a statement, in the order of their `ord`, and fan them out to
 * webhooks: `<prefix>event` inserts one event per row of `source` (a SELECT of `ord`, `id`, `type`,
 * `data` jsonb), for the transaction's tenant (its `livemode`), and `<prefix>fanned` queues one
 * PENDING delivery per enabled subscription of the organization whose patterns match each event's
 * type (exact type, `object.*` or `*`), or, with `deliverTo`, for that one subscription. Ordered
 * inserts: the event log's `sequence` is stamped at commit in insertion order.
 *
 * `recordEvent` is this with one row; a statement that builds its payloads in SQL from its own rows
 * (the finder's, decision 0226) puts its rows here, then checks them with `checkRecordedEvents`.
 */
export function recordEventsSql(
  source: SQL,
  options: { actor: Actor; deliverTo?: string; prefix?: string },
): SQL {
  const event = sql.raw(`${options.prefix ?? ''}event`);
  const fanned = sql.raw(`${options.prefix ?? ''}fanned`);
  const subscriptions =
    options.deliverTo === undefined
      ? sql`s.enabled AND s.event_types && ARRAY[e.type, split_part(e.type, '.', 1) || '.*', '*']::text[]`
      : sql`s.id = ${options.deliverTo}`;
  return sql`${event} AS (
      INSERT INTO events (id, organization_id, type, livemode, actor, data, created_at)
      SELECT r.id, o.id, r.type, o.live_organization_id IS NULL, ${JSON.stringify(options.actor)}::jsonb, r.data, now()
      FROM (${source}) r
      JOIN organizations o ON o.id = nullif(current_setting('app.organization_id', true), '')
      ORDER BY r.ord
      RETURNING id, organization_id, type, livemode, created_at
    ), ${fanned} AS (
      INSERT INTO webhook_deliveries (id, organization_id, subscription_id, event_id, event_type, next_attempt_at)
      SELECT ${deliveryIdFor(sql`e.id`)}, e.organization_id, s.id, e.id, e.type, now()
      FROM ${event} e
      JOIN webhook_subscriptions s ON s.organization_id = e.organization_id
      WHERE ${subscriptions}
    )`;
}

/**
 * Checks events a statement recorded with payloads it built in SQL against the catalog, as
 * `recordEvent` checks its input: a payload that breaks its type's schema is a programming error,
 * and throwing rolls the caller's transaction back, events and all.
 */
export function checkRecordedEvents(events: readonly { type: string; data: unknown }[]): void {
  for (const event of events) eventCatalog.check(event.type, event.data);
}

/**
 * Records an event inside the caller's tenant transaction, so it commits or rolls back with the
 * change that caused it. The organization and `livemode` come from the transaction's tenant (a
 * test twin's events are `livemode: false`), never from the caller. Throws outside a tenant
 * transaction, for a type outside the catalog, or for a payload that breaks the type's schema.
 *
 * The same statement fans the event out to webhooks (`recordEventsSql`): one PENDING delivery per
 * enabled subscription of the organization whose patterns match (exact type, `object.*` or `*`),
 * which the delivery worker then picks up. `deliverTo` replaces that matching with one named
 * subscription of the organization (`webhook.test`).
 */
export async function recordEvent(
  tx: Tx,
  input: { type: string; data: Record<string, unknown>; actor: Actor; deliverTo?: string },
): Promise<EventEnvelope> {
  eventCatalog.check(input.type, input.data);
  const id = newId('evt');
  const source = sql`SELECT 1 AS ord, ${id}::text AS id, ${input.type}::text AS type, ${JSON.stringify(input.data)}::jsonb AS data`;
  const { actor, deliverTo } = input;
  const rows = await queryRows<{ organization_id: string; livemode: boolean; created_at: string | Date }>(
    tx,
    sql`WITH ${recordEventsSql(source, deliverTo === undefined ? { actor } : { actor, deliverTo })}
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
