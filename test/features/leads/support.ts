/**
 * Reads what a portal form left behind, straight from the database (the capture tests check the
 * rows themselves; read.test.ts reads leads through GET /v1/leads), each inside the tenant's own
 * transaction.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/database.ts';
import { appointments, contacts, events, leads, visitRequests } from '../../../src/db/schema.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export async function contactsOf(organizationId: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(contacts)
      .where(eq(contacts.organizationId, organizationId))
      .orderBy(asc(contacts.createdAt)),
  );
}

export async function contactByPhone(organizationId: string, phone: string) {
  return (await contactsOf(organizationId)).find((c) => c.phone === phone) ?? null;
}

/** The events portal forms record (setting up a tenant records others: api_key.created, ...). */
export const FORM_EVENTS = ['contact.created', 'contact.updated', 'lead.submitted', 'visit.requested'];

/** Events of the organization of these types, oldest first. */
export async function eventsOf(organizationId: string, types: string[] = FORM_EVENTS) {
  const db = await testDatabase();
  const rows = await db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(events)
      .where(eq(events.organizationId, organizationId))
      .orderBy(asc(events.createdAt), asc(events.id)),
  );
  return rows.filter((row) => types.includes(row.type));
}

export async function leadsOf(organizationId: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx.select().from(leads).where(eq(leads.organizationId, organizationId)).orderBy(asc(leads.createdAt)),
  );
}

export async function visitRequestsOf(organizationId: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx
      .select()
      .from(visitRequests)
      .where(eq(visitRequests.organizationId, organizationId))
      .orderBy(asc(visitRequests.createdAt)),
  );
}

export async function appointmentsOf(organizationId: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, (tx) =>
    tx.select().from(appointments).where(eq(appointments.organizationId, organizationId)),
  );
}

/** Raw LEAD_FORM analytics rows and today's (UTC) aggregate per property ('' = none). */
export async function leadFormAnalytics(organizationId: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, async (tx) => {
    const raw = await queryRows<{ property_id: string | null; occurred_at: string | Date }>(
      tx,
      sql`SELECT property_id, occurred_at FROM analytics_events
          WHERE organization_id = ${organizationId} AND type = 'LEAD_FORM'`,
    );
    const daily = await queryRows<{ property_id: string; count: string | number }>(
      tx,
      sql`SELECT property_id, count FROM analytics_daily
          WHERE organization_id = ${organizationId} AND type = 'LEAD_FORM'
            AND day = (now() AT TIME ZONE 'UTC')::date`,
    );
    return {
      raw,
      daily: Object.fromEntries(daily.map((row) => [row.property_id, Number(row.count)])),
    };
  });
}

/** Number of contacts with this phone in the organization (the unique index allows at most one). */
export async function countContacts(organizationId: string, phone?: string) {
  const db = await testDatabase();
  return db.tenantTx(organizationId, async (tx) => {
    const rows = await tx
      .select({ id: contacts.id })
      .from(contacts)
      .where(
        phone === undefined
          ? eq(contacts.organizationId, organizationId)
          : and(eq(contacts.organizationId, organizationId), eq(contacts.phone, phone)),
      );
    return rows.length;
  });
}
