/**
 * What a usage event left behind, read straight from the database (the v1 API shows only the
 * aggregates), each inside the tenant's own transaction.
 */
import { and, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/database.ts';
import { contacts } from '../../../src/db/schema.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export interface RawUsageEvent {
  id: number;
  contact_id: string;
  name: string;
  label: string | null;
  props: Record<string, unknown> | null;
  company_id: string | null;
  actor_label: string | null;
  occurred_at: Date;
  created_at: Date;
}

/** Raw usage events of the organization, oldest first. */
export async function rawEventsOf(organizationId: string): Promise<RawUsageEvent[]> {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    queryRows<RawUsageEvent>(
      tx,
      sql`SELECT id, contact_id, name, label, props, company_id, actor_label, occurred_at, created_at
          FROM usage_events WHERE organization_id = ${organizationId} ORDER BY id`,
    ),
  );
  return rows.map((row) => ({
    ...row,
    id: Number(row.id),
    occurred_at: new Date(row.occurred_at),
    created_at: new Date(row.created_at),
  }));
}

/** Daily aggregates of the organization, by contact, day and name. */
export async function dailyOf(organizationId: string) {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    queryRows<{
      contact_id: string;
      day: string;
      name: string;
      count: string | number;
      first_occurred_at: string | Date;
      last_occurred_at: string | Date;
    }>(
      tx,
      sql`SELECT contact_id, to_char(day, 'YYYY-MM-DD') AS day, name, count, first_occurred_at, last_occurred_at
          FROM usage_daily WHERE organization_id = ${organizationId} ORDER BY contact_id, day, name`,
    ),
  );
  return rows.map((row) => ({
    contactId: row.contact_id,
    day: row.day,
    name: row.name,
    count: Number(row.count),
    first: new Date(row.first_occurred_at).toISOString(),
    last: new Date(row.last_occurred_at).toISOString(),
  }));
}

/** Moves the organization's raw events' arrival time back by `days` (the purge reads created_at). */
export async function ageRawEvents(organizationId: string, days: number, ids?: number[]): Promise<void> {
  const db = await testDatabase();
  await db.tenantTx(organizationId, (tx) =>
    queryRows(
      tx,
      sql`UPDATE usage_events SET created_at = created_at - make_interval(days => ${days})
          WHERE organization_id = ${organizationId}
            ${
              ids === undefined
                ? sql``
                : sql`AND id IN (${sql.join(
                    ids.map((id) => sql`${id}`),
                    sql`, `,
                  )})`
            }`,
    ),
  );
}

/** The contact's stored score. */
export async function scoreOf(organizationId: string, contactId: string): Promise<number> {
  const db = await testDatabase();
  return db.tenantTx(organizationId, async (tx) => {
    const [row] = await tx
      .select({ score: contacts.score })
      .from(contacts)
      .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, contactId)));
    return row?.score ?? -1;
  });
}
