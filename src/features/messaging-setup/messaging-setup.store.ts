import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import {
  messageTemplates,
  messagingNumbers,
  type MessageTemplateRow,
  type MessagingNumberRow,
} from '../../db/schema.ts';

export type NewMessagingNumber = typeof messagingNumbers.$inferInsert;
export type NewMessageTemplate = typeof messageTemplates.$inferInsert;

interface Page {
  limit: number;
  offset: number;
}

// ---- messaging numbers ------------------------------------------------------------------------

export async function insertMessagingNumber(tx: Tx, row: NewMessagingNumber): Promise<MessagingNumberRow> {
  return (await tx.insert(messagingNumbers).values(row).returning())[0] as MessagingNumberRow;
}

export async function findMessagingNumberById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<MessagingNumberRow | null> {
  const rows = await tx
    .select()
    .from(messagingNumbers)
    .where(and(eq(messagingNumbers.organizationId, organizationId), eq(messagingNumbers.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** Across tenants (system transaction): the organization behind an inbound hook's number. */
export async function findMessagingNumberAnywhere(tx: Tx, id: string): Promise<MessagingNumberRow | null> {
  const rows = await tx.select().from(messagingNumbers).where(eq(messagingNumbers.id, id)).limit(1);
  return rows[0] ?? null;
}

export async function findActiveMessagingNumber(
  tx: Tx,
  organizationId: string,
): Promise<MessagingNumberRow | null> {
  const rows = await tx
    .select()
    .from(messagingNumbers)
    .where(and(eq(messagingNumbers.organizationId, organizationId), eq(messagingNumbers.active, true)))
    .limit(1);
  return rows[0] ?? null;
}

export async function listMessagingNumbers(
  tx: Tx,
  organizationId: string,
  page: Page,
): Promise<{ items: MessagingNumberRow[]; total: number }> {
  const where = eq(messagingNumbers.organizationId, organizationId);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(messagingNumbers)
      .where(where)
      .orderBy(asc(messagingNumbers.createdAt), asc(messagingNumbers.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(messagingNumbers).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function updateMessagingNumber(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewMessagingNumber>,
): Promise<MessagingNumberRow | null> {
  const rows = await tx
    .update(messagingNumbers)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(messagingNumbers.organizationId, organizationId), eq(messagingNumbers.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteMessagingNumber(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<MessagingNumberRow | null> {
  const rows = await tx
    .delete(messagingNumbers)
    .where(and(eq(messagingNumbers.organizationId, organizationId), eq(messagingNumbers.id, id)))
    .returning();
  return rows[0] ?? null;
}

// ---- templates --------------------------------------------------------------------------------

export async function insertMessageTemplate(tx: Tx, row: NewMessageTemplate): Promise<MessageTemplateRow> {
  return (await tx.insert(messageTemplates).values(row).returning())[0] as MessageTemplateRow;
}

export async function findMessageTemplateById(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<MessageTemplateRow | null> {
  const rows = await tx
    .select()
    .from(messageTemplates)
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

export async function listMessageTemplates(
  tx: Tx,
  organizationId: string,
  page: Page,
): Promise<{ items: MessageTemplateRow[]; total: number }> {
  const where = eq(messageTemplates.organizationId, organizationId);
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(messageTemplates)
      .where(where)
      .orderBy(asc(messageTemplates.createdAt), asc(messageTemplates.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(messageTemplates).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

export async function updateMessageTemplate(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewMessageTemplate>,
): Promise<MessageTemplateRow | null> {
  const rows = await tx
    .update(messageTemplates)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteMessageTemplate(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<MessageTemplateRow | null> {
  const rows = await tx
    .delete(messageTemplates)
    .where(and(eq(messageTemplates.organizationId, organizationId), eq(messageTemplates.id, id)))
    .returning();
  return rows[0] ?? null;
}
