/**
 * What one POST /v1/finder left in the database, without what differs from one submission to the
 * next (ids, codes, the phone, timestamps): the contact, the saved search and the events about
 * them. The `finder` scenario compares it between the service's answer and the baseline's, so the
 * hand-written baseline is held to the same writes, not only to the same answer.
 */
import type pg from 'pg';

const CONTACT_VOLATILE = new Set(['id', 'code', 'phone', 'createdAt', 'updatedAt']);

/** The contact, search and event rows of one submission (`contactId`, `searchId` from its answer). */
export async function finderWrites(
  db: pg.Client,
  organizationId: string,
  contactId: string,
  searchId: string,
) {
  const contact = await db.query(
    `SELECT first_name, last_name, email, source, status, type, score, owner_id, preferred_city,
       preferred_type, budget, currency, tags, opted_out, last_activity_at IS NOT NULL AS active,
       replace(search_text, phone, '') AS search_text_without_phone
     FROM contacts WHERE organization_id = $1 AND id = $2`,
    [organizationId, contactId],
  );
  const search = await db.query(
    `SELECT criteria, subscribed_to_alerts, total, property_ids FROM finder_searches
     WHERE organization_id = $1 AND id = $2 AND contact_id = $3`,
    [organizationId, searchId, contactId],
  );
  const events = await db.query<{
    type: string;
    livemode: boolean;
    actor: unknown;
    data: Record<string, unknown>;
  }>(
    `SELECT type, livemode, actor, data FROM events
     WHERE organization_id = $1 AND (data -> 'contact' ->> 'id' = $2 OR data -> 'search' ->> 'id' = $3)
     ORDER BY type`,
    [organizationId, contactId, searchId],
  );
  return {
    contact: contact.rows,
    search: search.rows,
    events: events.rows.map((event) => ({ ...event, data: withoutVolatile(event.data) })),
  };
}

function withoutVolatile(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(data)) {
    if (name === 'contact' && value && typeof value === 'object')
      out[name] = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).filter(([field]) => !CONTACT_VOLATILE.has(field)),
      );
    else if (name === 'search' && value && typeof value === 'object') {
      const { id: _id, contactId: _contact, createdAt: _at, ...rest } = value as Record<string, unknown>;
      out[name] = rest;
    } else out[name] = value;
  }
  return out;
}

/** FINDER_SUBMIT analytics events and their daily counts of these organizations, to compare before and after. */
export async function finderCounts(db: pg.Client, organizationIds: string[]) {
  const { rows } = await db.query<{ events: number; daily: number }>(
    `SELECT (SELECT count(*)::int FROM analytics_events WHERE organization_id = ANY ($1) AND type = 'FINDER_SUBMIT') AS events,
       (SELECT coalesce(sum(count), 0)::int FROM analytics_daily WHERE organization_id = ANY ($1) AND type = 'FINDER_SUBMIT') AS daily`,
    [organizationIds],
  );
  return rows[0] ?? { events: 0, daily: 0 };
}
