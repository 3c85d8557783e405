import { and, count, desc, eq } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { contactNotes } from '../../db/schema.ts';

export type NoteRow = typeof contactNotes.$inferSelect;
export type NewNote = typeof contactNotes.$inferInsert;

export async function insertNote(tx: Tx, note: NewNote): Promise<NoteRow> {
  const [row] = await tx.insert(contactNotes).values(note).returning();
  return row as NoteRow;
}

/** One page of a contact's notes, newest first, and how many it has. */
export async function listNotes(
  tx: Tx,
  organizationId: string,
  contactId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: NoteRow[]; total: number }> {
  const where = and(eq(contactNotes.organizationId, organizationId), eq(contactNotes.contactId, contactId));
  const rows = await tx
    .select()
    .from(contactNotes)
    .where(where)
    .orderBy(desc(contactNotes.createdAt), desc(contactNotes.id))
    .limit(page.limit)
    .offset(page.offset);
  const [total] = await tx.select({ n: count() }).from(contactNotes).where(where);
  return { rows, total: Number(total?.n ?? 0) };
}
