import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../db/database.ts';
import { contacts, type ContactRow } from '../../db/schema.ts';

export type NewContact = typeof contacts.$inferInsert;

export async function findContactById(tx: Tx, organizationId: string, id: string): Promise<ContactRow | null> {
  const rows = await tx
    .select()
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * The contact with this E.164 phone or, failing that, this lowercased email; locked for the rest of
 * the transaction so two forms of one person upsert in turn.
 */
export async function findContactForUpsert(
  tx: Tx,
  organizationId: string,
  match: { phone: string | null; emailKey: string | null },
): Promise<{ byPhone: ContactRow | null; byEmail: ContactRow | null }> {
  const byPhone = match.phone
    ? ((
        await tx
          .select()
          .from(contacts)
          .where(and(eq(contacts.organizationId, organizationId), eq(contacts.phone, match.phone)))
          .limit(1)
          .for('update')
      )[0] ?? null)
    : null;
  const byEmail =
    match.emailKey && byPhone?.emailKey !== match.emailKey
      ? ((
          await tx
            .select()
            .from(contacts)
            .where(and(eq(contacts.organizationId, organizationId), eq(contacts.emailKey, match.emailKey)))
            .limit(1)
            .for('update')
        )[0] ?? null)
      : null;
  return { byPhone, byEmail };
}

/** Next value of a per-organization counter (`contact` -> CT-000001, CT-000002, ...). */
export async function nextCounter(tx: Tx, organizationId: string, name: string): Promise<number> {
  const rows = await queryRows<{ value: string | number }>(
    tx,
    sql`INSERT INTO organization_counters (organization_id, name, value) VALUES (${organizationId}, ${name}, 1)
        ON CONFLICT (organization_id, name) DO UPDATE SET value = organization_counters.value + 1
        RETURNING value`,
  );
  return Number(rows[0]?.value);
}

/** Inserts a contact; null when its phone or email was taken meanwhile (a parallel form of the same person). */
export async function insertContactUnlessTaken(tx: Tx, row: NewContact): Promise<ContactRow | null> {
  const rows = await tx.insert(contacts).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateContact(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewContact>,
): Promise<ContactRow | null> {
  const rows = await tx
    .update(contacts)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .returning();
  return rows[0] ?? null;
}
