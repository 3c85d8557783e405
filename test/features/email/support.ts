/**
 * The email tests' shared pieces: emails written straight into the log (the worker that composes and
 * sends them is not what these tests are about), reads of the rows and events they check, and the
 * signature of the bounce hook.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/database.ts';
import { emails, type EmailRow } from '../../../src/db/schema.ts';
import { newId } from '../../../src/platform/ids/ids.ts';
import { testDatabase } from '../../helpers/test-app.ts';

export const BOUNCE_SECRET = 'email-bounce-secret-for-tests-0123456789';
export const EMAIL_FROM = 'no-reply@costa-homes.example';

/** The body's `X-Email-Signature`, as the mail system's relay signs it. */
export const bounceSignature = (raw: string, secret = BOUNCE_SECRET) =>
  `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

let seeded = 0;

/**
 * An email of the organization's log, as the worker leaves a sent one (SENT, composed, to
 * `marta@example.com`) unless `fields` says otherwise; each one a millisecond later than the last.
 */
export async function seedEmail(organizationId: string, fields: Partial<EmailRow> = {}): Promise<EmailRow> {
  seeded += 1;
  const createdAt = new Date(Date.now() - 60_000 + seeded);
  const row = {
    id: newId('eml'),
    organizationId,
    kind: 'VISIT_CONFIRMATION',
    refId: newId('apt'),
    revision: 0,
    status: 'SENT',
    contactId: null,
    toAddress: 'marta@example.com',
    language: 'en',
    subject: 'Your visit on Thursday',
    html: '<p>Your visit is confirmed.</p>',
    text: 'Your visit is confirmed.',
    ics: null,
    transport: 'SANDBOX',
    attempts: 1,
    sentAt: createdAt,
    createdAt,
    updatedAt: createdAt,
    ...fields,
  };
  const db = await testDatabase();
  const [inserted] = await db.tenantTx(organizationId, (tx) => tx.insert(emails).values(row).returning());
  return inserted as EmailRow;
}

/** Rows of a query over every organization (the checks look at what the service wrote). */
export async function rows<T>(query: ReturnType<typeof sql>): Promise<T[]> {
  const db = await testDatabase();
  return db.systemTx((tx) => queryRows<T>(tx, query));
}

export const emailRow = async (id: string) =>
  (
    await rows<{ status: string; reason: string | null; organization_id: string }>(
      sql`SELECT status, reason, organization_id FROM emails WHERE id = ${id}`,
    )
  )[0];

export const suppressionsOf = (organizationId: string) =>
  rows<{ address: string; reason: string; email_id: string | null }>(
    sql`SELECT address, reason, email_id FROM email_suppressions WHERE organization_id = ${organizationId}
        ORDER BY address`,
  );

export const eventsOf = (organizationId: string, type: string) =>
  rows<{ data: Record<string, unknown>; actor: { kind: string } }>(
    sql`SELECT data, actor FROM events WHERE organization_id = ${organizationId} AND type = ${type}
        ORDER BY created_at, id`,
  );
