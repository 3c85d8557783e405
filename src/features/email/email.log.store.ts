// The email log's SQL: an organization's emails, newest first, one email, and a contact's emails (erasure).
import { and, desc, eq, gte, inArray, isNotNull, lt, type SQL } from 'drizzle-orm';
import { countOf, totalOf, type Tx } from '../../db/database.ts';
import { emails, type EmailRow } from '../../db/schema.ts';
import type { PageRequest } from '../../platform/http/pagination.ts';

export interface EmailFilter {
  status?: string;
  kind?: string;
  contactId?: string;
  /** createdAt at or after. */
  createdFrom?: Date;
  /** createdAt strictly before. */
  createdTo?: Date;
}

/** An email row without its bodies (a list never shows them). */
export type EmailSummaryRow = Omit<EmailRow, 'html' | 'text' | 'ics'>;

const SUMMARY = {
  id: emails.id,
  organizationId: emails.organizationId,
  kind: emails.kind,
  refId: emails.refId,
  revision: emails.revision,
  status: emails.status,
  reason: emails.reason,
  contactId: emails.contactId,
  toAddress: emails.toAddress,
  language: emails.language,
  subject: emails.subject,
  transport: emails.transport,
  attempts: emails.attempts,
  nextAttemptAt: emails.nextAttemptAt,
  sentAt: emails.sentAt,
  createdAt: emails.createdAt,
  updatedAt: emails.updatedAt,
};

function whereOf(organizationId: string, filter: EmailFilter): SQL | undefined {
  return and(
    eq(emails.organizationId, organizationId),
    filter.status === undefined ? undefined : eq(emails.status, filter.status),
    filter.kind === undefined ? undefined : eq(emails.kind, filter.kind),
    filter.contactId === undefined ? undefined : eq(emails.contactId, filter.contactId),
    filter.createdFrom === undefined ? undefined : gte(emails.createdAt, filter.createdFrom),
    filter.createdTo === undefined ? undefined : lt(emails.createdAt, filter.createdTo),
  );
}

/** A page of the organization's emails, newest first (the (organization_id, created_at, id) index backwards). */
export async function listEmails(
  tx: Tx,
  organizationId: string,
  filter: EmailFilter,
  page: Pick<PageRequest, 'limit' | 'offset'>,
): Promise<{ items: EmailSummaryRow[]; total: number }> {
  const where = whereOf(organizationId, filter);
  const rows = await tx
    .select({ row: SUMMARY, total: countOf(emails, where) })
    .from(emails)
    .where(where)
    .orderBy(desc(emails.createdAt), desc(emails.id))
    .limit(page.limit)
    .offset(page.offset);
  return { items: rows.map((r) => r.row), total: await totalOf(tx, rows, page, emails, where) };
}

/** One email of the organization (locked for this transaction with `lock`), or null. */
export async function findEmail(
  tx: Tx,
  organizationId: string,
  id: string,
  lock = false,
): Promise<EmailRow | null> {
  const query = tx
    .select()
    .from(emails)
    .where(and(eq(emails.organizationId, organizationId), eq(emails.id, id)))
    .limit(1);
  const rows = lock ? await query.for('update') : await query;
  return rows[0] ?? null;
}

/** The addresses the contact's emails of these kinds went to (the visitor's own, for an erasure). */
export async function addressesOf(
  tx: Tx,
  organizationId: string,
  contactId: string,
  kinds: readonly string[],
): Promise<string[]> {
  const rows = await tx
    .selectDistinct({ address: emails.toAddress })
    .from(emails)
    .where(
      and(
        eq(emails.organizationId, organizationId),
        eq(emails.contactId, contactId),
        inArray(emails.kind, [...kinds]),
        isNotNull(emails.toAddress),
      ),
    );
  return rows.map((row) => row.address as string);
}

/** Deletes the contact's emails (to them, or alerts about them); returns how many went. */
export async function deleteEmailsOf(tx: Tx, organizationId: string, contactId: string): Promise<number> {
  const deleted = await tx
    .delete(emails)
    .where(and(eq(emails.organizationId, organizationId), eq(emails.contactId, contactId)))
    .returning({ id: emails.id });
  return deleted.length;
}
