import type { Database, Tx } from '../../db/database.ts';
import type { ConversationRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import type { AppContext } from '../../platform/features/manifest.ts';
import { pageMeta, pageRequest, type PageMeta, type PageQuery } from '../../platform/http/pagination.ts';
import { newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { httpProvider, sandboxProvider, type MessagingProvider } from './conversations.provider.ts';
import { type Conversation, type Message, type UpdateConversationBody } from './conversations.schema.ts';
import * as store from './conversations.store.ts';
import { iso, resolveMessagingMode } from './conversations.modes.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { isId } from '../../platform/ids/ids.ts';
import { findContactInTx, type Contact } from '../contacts/index.ts';

/** What the messaging routes need besides the database: the platform client and the clock. */
export interface MessagingContext {
  /** The configured platform (MESSAGING_PROVIDER); test organizations always use the sandbox. */
  provider: MessagingProvider;
  /** Now; tests inject a clock to cross the 24-hour boundary. */
  clock: () => Date;
}

/** The messaging platform the configuration names (MESSAGING_PROVIDER), with the app's clock. */
export function messagingContext(context: Pick<AppContext, 'config' | 'clock'>): MessagingContext {
  const { config } = context;
  return {
    provider:
      config.messagingProvider === 'http'
        ? httpProvider({
            apiUrl: config.messagingApiUrl as string,
            token: config.messagingApiToken,
            timeoutMs: config.messagingTimeoutMs,
          })
        : sandboxProvider,
    clock: context.clock,
  };
}

/** Receipts are the platform speaking (the sandbox's simulated ones too). */
export const PLATFORM: Actor = { kind: 'INTEGRATION', userId: null };

export function toMessage(record: store.MessageRecord): Message {
  const { row } = record;
  return {
    id: row.id,
    chatMessageId: row.chatMessageId,
    channel: 'MESSAGING',
    direction: row.direction,
    type: row.type,
    body: row.body,
    renderedBody: row.renderedBody,
    status: row.status,
    timestamp: row.createdAt.toISOString(),
    contactId: row.contactId,
    agentId: row.agentId,
    agent:
      row.agentId !== null && record.agentFirstName !== null
        ? { id: row.agentId, firstName: record.agentFirstName, lastName: record.agentLastName ?? '' }
        : null,
    templateId: row.templateId,
    usage: row.usage ? { category: row.usage.category, billable: row.usage.billable } : null,
    failureReason: row.failureReason,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading.

function toConversation(
  contact: { id: string; firstName: string; lastName: string; phone: string | null; optedOut: boolean },
  conversation: ConversationRow | null,
  lastMessage: store.MessageRecord | null,
  now: Date,
): Conversation {
  const resolution = resolveMessagingMode({ contact, conversation }, now);
  return {
    id: conversation?.id ?? null,
    contactId: contact.id,
    contact: {
      id: contact.id,
      fullName: [contact.firstName, contact.lastName].filter(Boolean).join(' '),
      phone: contact.phone,
      optedOut: contact.optedOut,
    },
    mode: conversation?.mode ?? 'AUTOMATED',
    blocked: conversation?.blocked ?? false,
    messagingMode: resolution.mode,
    canSendFreeForm: resolution.mode === 'FREE_FORM',
    lastInboundAt: iso(conversation?.lastInboundAt ?? null),
    windowExpiresAt: iso(resolution.windowExpiresAt),
    lastMessage: lastMessage ? toMessage(lastMessage) : null,
    updatedAt: iso(conversation?.updatedAt ?? null),
  };
}

async function conversationOf(tx: Tx, organizationId: string, contactId: string, now: Date) {
  const contact = await loadContact(tx, organizationId, contactId);
  const conversation = await store.findConversation(tx, organizationId, contact.id);
  const last = conversation?.lastMessageId
    ? await store.findMessageRecord(tx, organizationId, conversation.lastMessageId)
    : null;
  return toConversation(contact, conversation, last, now);
}

/** GET /v1/conversations: every conversation with its state and last message, most recent first. */
export async function listConversations(
  db: Database,
  context: MessagingContext,
  caller: Caller,
  query: PageQuery,
): Promise<{ data: Conversation[]; meta: PageMeta }> {
  const page = pageRequest(query);
  const now = context.clock();
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listConversations(tx, caller.organization.id, page),
  );
  return {
    data: items.map((item) => toConversation(item.contact, item.conversation, item.lastMessage, now)),
    meta: pageMeta(total, page),
  };
}

/**
 * The state of one contact's conversation (one before the first message too): v1 and the back office.
 * 404 when the contact is not the caller's organization's.
 */
export async function getConversation(
  db: Database,
  context: MessagingContext,
  caller: Caller,
  contactId: string,
): Promise<Conversation> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, (tx) => conversationOf(tx, organizationId, contactId, context.clock()));
}

/** GET /v1/conversations/{contactId}/messages: the contact's messages, newest first. */
export async function listContactMessages(
  db: Database,
  caller: Caller,
  contactId: string,
  query: PageQuery,
): Promise<{ data: Message[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  return readAs(db, caller, async (tx) => {
    const contact = await loadContact(tx, organizationId, contactId);
    const { items, total } = await store.listMessages(tx, organizationId, contact.id, page);
    return { data: items.map(toMessage), meta: pageMeta(total, page) };
  });
}

/**
 * A contact's latest messages, newest first, at most `limit` (1-100); HTTP-free, for the MCP tool
 * `get_contact`. 404 (NOT_FOUND) when the contact is not the organization's.
 */
export async function listRecentMessages(
  db: Database,
  caller: Caller,
  contactId: string,
  limit: number,
): Promise<Message[]> {
  const organizationId = caller.organization.id;
  const size = Math.min(100, Math.max(1, Math.trunc(limit)));
  return readAs(db, caller, async (tx) => {
    const contact = await loadContact(tx, organizationId, contactId);
    const { items } = await store.listMessages(
      tx,
      organizationId,
      contact.id,
      { limit: size, offset: 0 },
      false,
    );
    return items.map(toMessage);
  });
}

/**
 * A person takes the conversation over (`mode: HUMAN`; the API then answers 409 HUMAN_AGENT_ONLY) or
 * hands it back (`AUTOMATED`), or blocks the number (409 BLOCKED): the back office's inbox controls.
 */
export async function updateConversation(
  db: Database,
  context: MessagingContext,
  caller: Caller,
  contactId: string,
  body: UpdateConversationBody,
): Promise<Conversation> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const contact = await loadContact(tx, organizationId, contactId);
    await store.upsertConversation(tx, {
      id: newId('conv'),
      organizationId,
      contactId: contact.id,
      mode: body.mode,
      blocked: body.blocked,
    });
    return conversationOf(tx, organizationId, contact.id, context.clock());
  });
}

export async function loadContact(tx: Tx, organizationId: string, contactId: string): Promise<Contact> {
  const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
  // Another organization's contact is as missing as one that never existed.
  if (!contact) throw Errors.notFound('Contact', contactId);
  return contact;
}

export async function messageOf(tx: Tx, organizationId: string, id: string): Promise<Message> {
  const record = await store.findMessageRecord(tx, organizationId, id);
  if (!record) throw Errors.internal(new Error(`message ${id} vanished`));
  return toMessage(record);
}
