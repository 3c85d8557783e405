import { and, asc, count, desc, eq, getTableColumns, lt, sql } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import {
  agents,
  contacts,
  conversations,
  messages,
  type ContactRow,
  type ConversationRow,
  type MessageRow,
} from '../../db/schema.ts';

export type NewMessage = typeof messages.$inferInsert;

interface Page {
  limit: number;
  offset: number;
}

/** A message with the names of its agent (the reply shows `agent {id, firstName, lastName}`). */
export interface MessageRecord {
  row: MessageRow;
  agentFirstName: string | null;
  agentLastName: string | null;
}

const messageWithAgent = {
  row: getTableColumns(messages),
  agentFirstName: agents.firstName,
  agentLastName: agents.lastName,
};

// ---- conversations ----------------------------------------------------------------------------

export async function findConversation(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<ConversationRow | null> {
  const rows = await tx
    .select()
    .from(conversations)
    .where(and(eq(conversations.organizationId, organizationId), eq(conversations.contactId, contactId)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * Creates the contact's conversation if it has none, or changes it; `lastInboundAt` only ever moves
 * forward (a late retry of an old inbound message does not shorten the window).
 */
export async function upsertConversation(
  tx: Tx,
  row: {
    id: string;
    organizationId: string;
    contactId: string;
    mode?: ConversationRow['mode'];
    blocked?: boolean;
    lastInboundAt?: Date;
    lastMessageId?: string;
    lastMessageAt?: Date;
  },
): Promise<ConversationRow> {
  const set: Record<string, unknown> = { updatedAt: sql`now()` };
  if (row.mode !== undefined) set.mode = row.mode;
  if (row.blocked !== undefined) set.blocked = row.blocked;
  if (row.lastInboundAt !== undefined) {
    set.lastInboundAt = sql`greatest(${conversations.lastInboundAt}, excluded.last_inbound_at)`;
  }
  if (row.lastMessageId !== undefined) {
    // The newest message stays the last one when an older one arrives late.
    const newer = sql`${conversations.lastMessageAt} IS NULL OR excluded.last_message_at >= ${conversations.lastMessageAt}`;
    set.lastMessageId = sql`CASE WHEN ${newer} THEN excluded.last_message_id ELSE ${conversations.lastMessageId} END`;
    set.lastMessageAt = sql`CASE WHEN ${newer} THEN excluded.last_message_at ELSE ${conversations.lastMessageAt} END`;
  }
  const rows = await tx
    .insert(conversations)
    .values(row)
    .onConflictDoUpdate({ target: [conversations.organizationId, conversations.contactId], set })
    .returning();
  return rows[0] as ConversationRow;
}

/** One conversation as the list shows it: the row, its contact and its last message. */
export interface ConversationRecord {
  conversation: ConversationRow;
  contact: Pick<ContactRow, 'id' | 'firstName' | 'lastName' | 'phone' | 'optedOut'>;
  lastMessage: MessageRecord | null;
}

/** One page of conversations, the most recent message first, in one query (no N+1). */
export async function listConversations(
  tx: Tx,
  organizationId: string,
  page: Page,
): Promise<{ items: ConversationRecord[]; total: number }> {
  const where = eq(conversations.organizationId, organizationId);
  const [rows, totals] = await Promise.all([
    tx
      .select({
        conversation: getTableColumns(conversations),
        contact: {
          id: contacts.id,
          firstName: contacts.firstName,
          lastName: contacts.lastName,
          phone: contacts.phone,
          optedOut: contacts.optedOut,
        },
        message: getTableColumns(messages),
        agentFirstName: agents.firstName,
        agentLastName: agents.lastName,
      })
      .from(conversations)
      .innerJoin(
        contacts,
        and(eq(contacts.organizationId, organizationId), eq(contacts.id, conversations.contactId)),
      )
      .leftJoin(
        messages,
        and(eq(messages.organizationId, organizationId), eq(messages.id, conversations.lastMessageId)),
      )
      .leftJoin(
        agents,
        and(eq(agents.organizationId, messages.organizationId), eq(agents.id, messages.agentId)),
      )
      .where(where)
      .orderBy(sql`${conversations.lastMessageAt} DESC NULLS LAST`, desc(conversations.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(conversations).where(where),
  ]);
  const items = rows.map((r) => ({
    conversation: r.conversation,
    contact: r.contact,
    lastMessage: r.message
      ? { row: r.message, agentFirstName: r.agentFirstName, agentLastName: r.agentLastName }
      : null,
  }));
  return { items, total: Number(totals[0]?.total ?? 0) };
}

// ---- messages ---------------------------------------------------------------------------------

/** Inserts a message; null when the platform's id is already stored (a provider retry). */
export async function insertMessageUnlessKnown(tx: Tx, row: NewMessage): Promise<MessageRow | null> {
  const rows = await tx.insert(messages).values(row).onConflictDoNothing().returning();
  return rows[0] ?? null;
}

export async function updateMessage(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewMessage>,
): Promise<MessageRow | null> {
  const rows = await tx
    .update(messages)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(messages.organizationId, organizationId), eq(messages.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function findMessageByChatId(
  tx: Tx,
  organizationId: string,
  chatMessageId: string,
): Promise<MessageRow | null> {
  const rows = await tx
    .select()
    .from(messages)
    .where(and(eq(messages.organizationId, organizationId), eq(messages.chatMessageId, chatMessageId)))
    .limit(1)
    .for('update');
  return rows[0] ?? null;
}

export async function findMessageRecord(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<MessageRecord | null> {
  const rows = await tx
    .select(messageWithAgent)
    .from(messages)
    .leftJoin(
      agents,
      and(eq(agents.organizationId, messages.organizationId), eq(agents.id, messages.agentId)),
    )
    .where(and(eq(messages.organizationId, organizationId), eq(messages.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/** One page of a contact's messages, newest first (index messages_contact_id_created_at_idx). */
export async function listMessages(
  tx: Tx,
  organizationId: string,
  contactId: string,
  page: Page,
  withTotal = true,
): Promise<{ items: MessageRecord[]; total: number }> {
  const where = and(eq(messages.organizationId, organizationId), eq(messages.contactId, contactId));
  const [items, totals] = await Promise.all([
    tx
      .select(messageWithAgent)
      .from(messages)
      .leftJoin(
        agents,
        and(eq(agents.organizationId, messages.organizationId), eq(agents.id, messages.agentId)),
      )
      .where(where)
      .orderBy(desc(messages.createdAt), desc(messages.id))
      .limit(page.limit)
      .offset(page.offset),
    withTotal ? tx.select({ total: count() }).from(messages).where(where) : Promise.resolve([]),
  ]);
  return { items, total: Number(totals[0]?.total ?? items.length) };
}

/** Across tenants (system transaction): outbound messages still QUEUED since before `before`, oldest first. */
export async function findStaleQueuedMessages(
  tx: Tx,
  before: Date,
  limit: number,
): Promise<{ organizationId: string; id: string }[]> {
  return tx
    .select({ organizationId: messages.organizationId, id: messages.id })
    .from(messages)
    .where(and(eq(messages.status, 'QUEUED'), lt(messages.createdAt, before)))
    .orderBy(asc(messages.createdAt))
    .limit(limit);
}

/** Marks one message FAILED if it is still QUEUED (a late step 3 of its send may have won the race). */
export async function failQueuedMessage(
  tx: Tx,
  organizationId: string,
  id: string,
  reason: string,
): Promise<MessageRow | null> {
  const rows = await tx
    .update(messages)
    .set({ status: 'FAILED', failureReason: reason, updatedAt: sql`now()` })
    .where(
      and(eq(messages.organizationId, organizationId), eq(messages.id, id), eq(messages.status, 'QUEUED')),
    )
    .returning();
  return rows[0] ?? null;
}
