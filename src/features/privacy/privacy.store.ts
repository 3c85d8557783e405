import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import type { DataPlace } from '../../platform/privacy/personal-data.ts';

/** Columns an export leaves out: the tenant, and keys derived from fields it shows. */
const NOT_EXPORTED = new Set(['organization_id', 'email_key', 'search_text']);

const camel = (name: string) => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

function exported(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (NOT_EXPORTED.has(name)) continue;
    out[camel(name)] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

/**
 * The rows of one place about the contact, oldest first, as JSON (camelCase names, ISO instants).
 * `deal_id` places are reached through the contact's deals. Table and column names come from the
 * inventory, never from a request.
 */
export async function rowsAbout(
  tx: Tx,
  organizationId: string,
  place: DataPlace & { link: 'id' | 'contact_id' | 'deal_id' },
  contactId: string,
): Promise<Record<string, unknown>[]> {
  const table = sql.identifier(place.table);
  const where =
    place.link === 'deal_id'
      ? sql`deal_id IN (SELECT id FROM deals WHERE organization_id = ${organizationId} AND contact_id = ${contactId})`
      : sql`${sql.identifier(place.link)} = ${contactId}`;
  const order = place.table === 'usage_daily' ? sql`day, name` : sql`created_at, id`;
  const rows = await queryRows<Record<string, unknown>>(
    tx,
    sql`SELECT * FROM ${table} WHERE organization_id = ${organizationId} AND ${where} ORDER BY ${order}`,
  );
  return rows.map(exported);
}

/**
 * The contact and every contact ever merged into it, transitively (S into T, then T into U: U, T, S).
 * The merge record is the `contact.merged` event (`data.contact.id` the target, `data.sourceContactId`
 * the source); the event log's retention is by age alone, so it outlives every copy of the source's
 * data in the log and in stored responses (docs/decisions/0244-erasure-follows-merges.md).
 */
export async function contactsMergedInto(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`WITH RECURSIVE merged(id) AS (
          SELECT ${contactId}::text
          UNION
          SELECT e.data->>'sourceContactId' FROM events e JOIN merged m ON e.data->'contact'->>'id' = m.id
          WHERE e.organization_id = ${organizationId} AND e.type = 'contact.merged'
        )
        SELECT id FROM merged WHERE id IS NOT NULL`,
  );
  return rows.map((row) => row.id);
}

/**
 * Every version of these contacts the event log still holds (`data.contact` of their `contact.*`
 * events, tombstones aside): the only place a merged source's own name, email and phone survive.
 */
export async function contactVersionsInEvents(
  tx: Tx,
  organizationId: string,
  contactIds: readonly string[],
): Promise<Record<string, unknown>[]> {
  if (contactIds.length === 0) return [];
  const ids = sql.join(
    contactIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await queryRows<{ contact: Record<string, unknown> }>(
    tx,
    sql`SELECT data->'contact' AS contact FROM events
        WHERE organization_id = ${organizationId} AND type LIKE 'contact.%'
          AND data->'contact'->>'id' IN (${ids})`,
  );
  return rows.map((row) => row.contact);
}

/** The organization's events whose payload mentions any of `needles` (an id, an email, a phone). */
export async function eventsMentioning(
  tx: Tx,
  organizationId: string,
  needles: readonly string[],
): Promise<{ id: string; data: Record<string, unknown> }[]> {
  const mentions = sql.join(
    needles.map((needle) => sql`strpos(data::text, ${needle}) > 0`),
    sql` OR `,
  );
  return queryRows(
    tx,
    sql`SELECT id, data FROM events WHERE organization_id = ${organizationId} AND (${mentions})`,
  );
}

/** Replaces an event's payload, and drops the receivers' answers to its deliveries (they may echo it). */
export async function rewriteEvent(
  tx: Tx,
  organizationId: string,
  id: string,
  data: Record<string, unknown>,
): Promise<void> {
  await tx.execute(
    sql`UPDATE events SET data = ${JSON.stringify(data)}::jsonb WHERE organization_id = ${organizationId} AND id = ${id}`,
  );
  await tx.execute(sql`
    UPDATE webhook_attempts SET response_body = NULL, response_headers = NULL, error = NULL
    WHERE organization_id = ${organizationId}
      AND delivery_id IN (SELECT id FROM webhook_deliveries WHERE organization_id = ${organizationId} AND event_id = ${id})
      AND (response_body IS NOT NULL OR response_headers IS NOT NULL OR error IS NOT NULL)`);
}

/** Moves a place's rows from one contact to another; returns how many. */
export async function moveRows(
  tx: Tx,
  organizationId: string,
  table: string,
  from: string,
  to: string,
): Promise<number> {
  const rows = await queryRows(
    tx,
    sql`UPDATE ${sql.identifier(table)} SET contact_id = ${to}
        WHERE organization_id = ${organizationId} AND contact_id = ${from} RETURNING 1`,
  );
  return rows.length;
}

/** Adds the source's daily usage totals to the target's (same day and name: summed); returns the source's rows. */
export async function mergeUsageDaily(
  tx: Tx,
  organizationId: string,
  from: string,
  to: string,
): Promise<number> {
  const rows = await queryRows(
    tx,
    sql`INSERT INTO usage_daily AS d (organization_id, contact_id, day, name, count, first_occurred_at, last_occurred_at)
        SELECT organization_id, ${to}, day, name, count, first_occurred_at, last_occurred_at
        FROM usage_daily WHERE organization_id = ${organizationId} AND contact_id = ${from}
        ON CONFLICT (organization_id, contact_id, day, name) DO UPDATE SET
          count = d.count + excluded.count,
          first_occurred_at = least(d.first_occurred_at, excluded.first_occurred_at),
          last_occurred_at = greatest(d.last_occurred_at, excluded.last_occurred_at)
        RETURNING 1`,
  );
  await tx.execute(
    sql`DELETE FROM usage_daily WHERE organization_id = ${organizationId} AND contact_id = ${from}`,
  );
  return rows.length;
}

/**
 * One conversation per contact: the target keeps its own (with the later window, the latest message,
 * blocked if either was), or takes the source's when it has none. Messages are moved by `moveRows`.
 */
export async function mergeConversations(
  tx: Tx,
  organizationId: string,
  from: string,
  to: string,
): Promise<number> {
  const [target] = await queryRows<{ id: string }>(
    tx,
    sql`SELECT id FROM conversations WHERE organization_id = ${organizationId} AND contact_id = ${to} FOR UPDATE`,
  );
  if (!target) return moveRows(tx, organizationId, 'conversations', from, to);
  const merged = await queryRows(
    tx,
    sql`UPDATE conversations t SET
          last_inbound_at = greatest(t.last_inbound_at, s.last_inbound_at),
          last_message_id = CASE WHEN s.last_message_at > t.last_message_at OR t.last_message_at IS NULL
                                 THEN s.last_message_id ELSE t.last_message_id END,
          last_message_at = greatest(t.last_message_at, s.last_message_at),
          blocked = t.blocked OR s.blocked,
          updated_at = now()
        FROM conversations s
        WHERE t.id = ${target.id} AND s.organization_id = ${organizationId} AND s.contact_id = ${from}
        RETURNING 1`,
  );
  await tx.execute(
    sql`DELETE FROM conversations WHERE organization_id = ${organizationId} AND contact_id = ${from}`,
  );
  return merged.length;
}
