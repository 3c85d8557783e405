// The emails queue's SQL (migration 0037, decision 0267): claiming due emails across organizations
// with a lease, keeping what an email says once it is rendered, and settling it.
import { and, count, eq, gt, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { emails, type EmailRow } from '../../db/schema.ts';
import type { EmailStatus } from './email.kinds.ts';

/** An email this worker sends now, and how many sends of it started, this one included. */
export interface ClaimedEmail {
  organizationId: string;
  id: string;
  attempts: number;
}

/**
 * Takes up to `limit` due emails across organizations for `leaseMs`: QUEUED ones whose time has come
 * and SENDING ones whose sender's lease ended (a worker that died mid-send: sent again, with the same
 * Message-ID). FOR UPDATE SKIP LOCKED and the lease: two workers never send the same email at once.
 */
export async function claimDueEmails(
  tx: Tx,
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<ClaimedEmail[]> {
  const rows = await queryRows<{ organization_id: string; id: string; attempts: number }>(
    tx,
    sql`WITH picked AS (
          SELECT organization_id, id FROM emails
          WHERE status IN ('QUEUED', 'SENDING') AND next_attempt_at <= ${now}
          ORDER BY next_attempt_at
          LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        )
        UPDATE emails e
        SET status = 'SENDING', attempts = e.attempts + 1, updated_at = ${now},
          next_attempt_at = ${now}::timestamptz + ${leaseMs} * interval '1 millisecond'
        FROM picked p
        WHERE e.organization_id = p.organization_id AND e.id = p.id
        RETURNING e.organization_id, e.id, e.attempts`,
  );
  return rows.map((row) => ({
    organizationId: row.organization_id,
    id: row.id,
    attempts: Number(row.attempts),
  }));
}

const byId = (organizationId: string, id: string) =>
  and(eq(emails.organizationId, organizationId), eq(emails.id, id));

/** The email, locked for this transaction; null when it is gone (its organization was deleted). */
export async function lockEmail(tx: Tx, organizationId: string, id: string): Promise<EmailRow | null> {
  const rows = await tx.select().from(emails).where(byId(organizationId, id)).for('update');
  return rows[0] ?? null;
}

/** What the email says, kept once rendered: every later attempt sends the same message. */
export interface RenderedEmail {
  contactId: string | null;
  toAddress: string;
  language: string;
  subject: string;
  html: string;
  text: string;
  ics: string | null;
}

export async function saveRendered(tx: Tx, organizationId: string, id: string, rendered: RenderedEmail) {
  await tx.update(emails).set(rendered).where(byId(organizationId, id));
}

/** The email is done: SENT (with its transport), SKIPPED with why, or FAILED for good. */
export async function settleEmail(
  tx: Tx,
  organizationId: string,
  id: string,
  outcome: {
    status: Extract<EmailStatus, 'SENT' | 'SKIPPED' | 'FAILED'>;
    reason: string | null;
    transport?: string;
  },
  now: Date,
): Promise<EmailRow> {
  const rows = await tx
    .update(emails)
    .set({
      status: outcome.status,
      reason: outcome.reason,
      transport: outcome.transport ?? null,
      sentAt: outcome.status === 'SENT' ? now : null,
      updatedAt: now,
    })
    .where(byId(organizationId, id))
    .returning();
  return rows[0] as EmailRow;
}

/**
 * The email goes again at `at`: after a failed send (`reason`), or, with `attempt: 'not counted'`, held
 * back by the organization's hourly limit (a held email has not been tried).
 */
export async function requeueEmail(
  tx: Tx,
  organizationId: string,
  id: string,
  next: { at: Date; reason: string | null; uncount?: boolean },
  now: Date,
): Promise<void> {
  await tx
    .update(emails)
    .set({
      status: 'QUEUED',
      nextAttemptAt: next.at,
      reason: next.reason,
      updatedAt: now,
      ...(next.uncount ? { attempts: sql`greatest(${emails.attempts} - 1, 0)` } : {}),
    })
    .where(byId(organizationId, id));
}

/** How many emails the organization sent since `since`, and when the oldest of them went. */
export async function sentSince(
  tx: Tx,
  organizationId: string,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const rows = await tx
    .select({ count: count(), oldest: sql<Date | string | null>`min(${emails.sentAt})` })
    .from(emails)
    .where(and(eq(emails.organizationId, organizationId), gt(emails.sentAt, since)));
  const row = rows[0];
  return {
    count: Number(row?.count ?? 0),
    oldest: row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest),
  };
}
