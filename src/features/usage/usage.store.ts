import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';

/** How a usage event names its owner; absent identifiers are left out. */
export interface UsageOwnerIdentity {
  contactId?: string | undefined;
  externalId?: string | undefined;
  /** Already lowercased and trimmed (the contacts' `email_key`). */
  emailKey?: string | undefined;
}

export interface NewUsageEvent {
  name: string;
  label: string | null;
  props: Record<string, unknown> | null;
  companyId: string | null;
  actorLabel: string | null;
  occurredAt: Date;
}

/**
 * The candidate owners, best first: the contact with this id, else the oldest contact with this
 * external id (it is not unique), else the one with this email. Each branch is one index probe.
 */
function ownerCandidates(organizationId: string, identity: UsageOwnerIdentity): SQL {
  const branches: SQL[] = [];
  if (identity.contactId !== undefined)
    branches.push(
      sql`SELECT id, 1 AS rank FROM contacts WHERE organization_id = ${organizationId} AND id = ${identity.contactId}`,
    );
  if (identity.externalId !== undefined)
    branches.push(
      sql`(SELECT id, 2 AS rank FROM contacts WHERE organization_id = ${organizationId} AND external_id = ${identity.externalId} ORDER BY created_at, id LIMIT 1)`,
    );
  if (identity.emailKey !== undefined)
    branches.push(
      sql`SELECT id, 3 AS rank FROM contacts WHERE organization_id = ${organizationId} AND email_key = ${identity.emailKey}`,
    );
  if (branches.length === 0) throw new Error('a usage event needs at least one identifier');
  return sql.join(branches, sql` UNION ALL `);
}

/**
 * Finds the owner, appends the raw event and adds it to the owner's daily aggregate (UTC day of
 * `occurredAt`) in ONE statement, so the hot path costs one round trip and the aggregate never
 * disagrees with the raw rows. The owner row is key-share locked: a contact deleted meanwhile is
 * simply not found, instead of a foreign-key error. Returns the owner's id, or null when no
 * contact matched (nothing is written then).
 *
 * The owner lookup reads the contacts table directly (identification is part of this one
 * statement); the contacts feature still owns every write to it.
 */
export async function appendUsageEvent(
  tx: Tx,
  organizationId: string,
  identity: UsageOwnerIdentity,
  event: NewUsageEvent,
): Promise<string | null> {
  const props = event.props === null ? null : JSON.stringify(event.props);
  const rows = await queryRows<{ contact_id: string }>(
    tx,
    sql`WITH candidate AS (${ownerCandidates(organizationId, identity)}),
        owner AS (
          SELECT c.id FROM contacts c
          WHERE c.organization_id = ${organizationId}
            AND c.id = (SELECT id FROM candidate ORDER BY rank LIMIT 1)
          FOR KEY SHARE
        ), inserted AS (
          INSERT INTO usage_events (organization_id, contact_id, name, label, props, company_id, actor_label, occurred_at)
          SELECT ${organizationId}, owner.id, ${event.name}, ${event.label}, ${props}::jsonb,
                 ${event.companyId}, ${event.actorLabel}, ${event.occurredAt.toISOString()}::timestamptz
          FROM owner
          RETURNING contact_id, occurred_at
        ), daily AS (
          INSERT INTO usage_daily AS d (organization_id, contact_id, day, name, count, first_occurred_at, last_occurred_at)
          SELECT ${organizationId}, contact_id, (occurred_at AT TIME ZONE 'UTC')::date, ${event.name}, 1,
                 occurred_at, occurred_at
          FROM inserted
          ON CONFLICT (organization_id, contact_id, day, name) DO UPDATE SET
            count = d.count + 1,
            first_occurred_at = least(d.first_occurred_at, excluded.first_occurred_at),
            last_occurred_at = greatest(d.last_occurred_at, excluded.last_occurred_at)
          RETURNING 1
        )
        SELECT contact_id FROM inserted`,
  );
  return rows[0]?.contact_id ?? null;
}

export interface UsageDailyRow {
  date: string;
  name: string;
  count: number;
  firstOccurredAt: Date;
  lastOccurredAt: Date;
}

/** A contact's daily aggregates over UTC days `from`..`to`, oldest first (primary key range scan). */
export async function listUsageDaily(
  tx: Tx,
  organizationId: string,
  contactId: string,
  range: { from: string; to: string },
): Promise<UsageDailyRow[]> {
  const rows = await queryRows<{
    date: string;
    name: string;
    count: string | number;
    first_occurred_at: string | Date;
    last_occurred_at: string | Date;
  }>(
    tx,
    sql`SELECT to_char(day, 'YYYY-MM-DD') AS date, name, count, first_occurred_at, last_occurred_at
        FROM usage_daily
        WHERE organization_id = ${organizationId} AND contact_id = ${contactId}
          AND day BETWEEN ${range.from}::date AND ${range.to}::date
        ORDER BY day, name`,
  );
  return rows.map((row) => ({
    date: row.date,
    name: row.name,
    count: Number(row.count),
    firstOccurredAt: new Date(row.first_occurred_at),
    lastOccurredAt: new Date(row.last_occurred_at),
  }));
}
