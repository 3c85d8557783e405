/**
 * Contacts to own usage events, and what a usage event left behind, read straight from the
 * database (the v1 API shows only the aggregates), each inside the tenant's own transaction.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../../src/db/database.ts';
import { contacts } from '../../../src/db/schema.ts';
import { busyPublishableKey } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { testDatabase } from '../../helpers/test-app.ts';

let phoneSequence = 0;

/** A publishable key with limits high enough for a whole test file. */
export async function fastPublishableKey(app: FastifyInstance, organizationId: string): Promise<string> {
  return await busyPublishableKey(app, organizationId);
}

/**
 * A contact as a portal visitor creates one (POST /v1/leads), then given an `externalId` when
 * asked (the portal form has none). Returns its id.
 */
export async function createContact(
  app: FastifyInstance,
  organizationId: string,
  publishableKey: string,
  options: { email?: string; externalId?: string } = {},
): Promise<string> {
  phoneSequence += 1;
  const phone = `+1415556${String(phoneSequence).padStart(4, '0')}`;
  const response = await api(app, 'POST', '/v1/leads', {
    key: publishableKey,
    body: { firstName: 'Usage', lastName: `Person ${phoneSequence}`, phone, email: options.email },
  });
  expectStatus(response, 201);
  const db = await testDatabase();
  return db.tenantTx(organizationId, async (tx) => {
    const where = and(eq(contacts.organizationId, organizationId), eq(contacts.phone, phone));
    if (options.externalId !== undefined)
      await tx.update(contacts).set({ externalId: options.externalId }).where(where);
    const [row] = await tx.select({ id: contacts.id }).from(contacts).where(where);
    if (!row) throw new Error(`no contact with phone ${phone}`);
    return row.id;
  });
}

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
