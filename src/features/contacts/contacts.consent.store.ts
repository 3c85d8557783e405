import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { contactConsents, contacts, type ContactConsentRow, type ContactRow } from '../../db/schema.ts';

export type NewConsent = typeof contactConsents.$inferInsert;

/**
 * Stamped with the clock at the insert (not the transaction's start), after `lockContact`: a statement
 * that waited for another one is newer than it, so the newest row and `opted_out` always agree.
 */
export async function insertConsent(tx: Tx, consent: NewConsent): Promise<ContactConsentRow> {
  const [row] = await tx
    .insert(contactConsents)
    .values({ ...consent, createdAt: sql`clock_timestamp()` })
    .returning();
  return row as ContactConsentRow;
}

/** Locks the contact's row until the transaction ends: one consent statement of a person at a time. */
export async function lockContact(tx: Tx, organizationId: string, contactId: string): Promise<void> {
  await tx
    .select({ id: contacts.id })
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, contactId)))
    .for('update');
}

/** The newest row of one channel of a contact: its current consent there, or null when never given. */
export async function findCurrentConsent(
  tx: Tx,
  organizationId: string,
  contactId: string,
  channel: ContactConsentRow['channel'],
): Promise<ContactConsentRow | null> {
  const rows = await tx
    .select()
    .from(contactConsents)
    .where(
      and(
        eq(contactConsents.organizationId, organizationId),
        eq(contactConsents.contactId, contactId),
        eq(contactConsents.channel, channel),
      ),
    )
    .orderBy(desc(contactConsents.createdAt), desc(contactConsents.id))
    .limit(1);
  return rows[0] ?? null;
}

/** A contact's consent rows, newest first, at most `limit`. */
export async function listConsents(
  tx: Tx,
  organizationId: string,
  contactId: string,
  limit: number,
): Promise<ContactConsentRow[]> {
  return tx
    .select()
    .from(contactConsents)
    .where(and(eq(contactConsents.organizationId, organizationId), eq(contactConsents.contactId, contactId)))
    .orderBy(desc(contactConsents.createdAt), desc(contactConsents.id))
    .limit(limit);
}

/**
 * The newest row per channel of a contact (DISTINCT ON walks the (contact, channel, created_at desc)
 * index), so the current state never depends on how long the history is.
 */
export async function listCurrentConsents(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<ContactConsentRow[]> {
  return tx
    .selectDistinctOn([contactConsents.channel])
    .from(contactConsents)
    .where(and(eq(contactConsents.organizationId, organizationId), eq(contactConsents.contactId, contactId)))
    .orderBy(contactConsents.channel, desc(contactConsents.createdAt), desc(contactConsents.id));
}

/** Sets `opted_out` unless it already has that value: the changed row, or null when nothing changed. */
export async function setOptedOut(
  tx: Tx,
  organizationId: string,
  contactId: string,
  optedOut: boolean,
): Promise<ContactRow | null> {
  const rows = await tx
    .update(contacts)
    .set({ optedOut, updatedAt: sql`now()` })
    .where(
      and(
        eq(contacts.organizationId, organizationId),
        eq(contacts.id, contactId),
        ne(contacts.optedOut, optedOut),
      ),
    )
    .returning();
  return rows[0] ?? null;
}
