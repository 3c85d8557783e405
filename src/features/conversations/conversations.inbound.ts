// Receipts and inbound messages: the provider's hook and the back office's inbound route.
import type { Database, Tx } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { type Contact, optOutContact, recomputeContactScore } from '../contacts/index.ts';
import { MessageReceived, MessageStatusChanged } from './conversations.events.ts';
import { type Message, type MessageStatus, type MessageType } from './conversations.schema.ts';
import * as store from './conversations.store.ts';
import { loadContact, messageOf, type MessagingContext } from './conversations.service.ts';
import { SERVICE_WINDOW_MS } from './conversations.modes.ts';

// ---------------------------------------------------------------------------------------------
// Receipts and inbound messages (the provider's hook and the back office's inbound route).

const STATUS_RANK: Record<MessageStatus, number> = { QUEUED: 0, SENT: 1, DELIVERED: 2, READ: 3, FAILED: 4 };

/**
 * Applies a delivery receipt to the outbound message with this platform id: statuses only move
 * forward (a late "delivered" after "read" is dropped), FAILED never replaces READ. Records
 * `message.status_changed`. False when there is no such message or nothing changed.
 */
export async function applyStatus(
  tx: Tx,
  organizationId: string,
  chatMessageId: string,
  status: Exclude<MessageStatus, 'QUEUED'>,
  failureReason: string | null,
  actor: Actor,
): Promise<boolean> {
  const row = await store.findMessageByChatId(tx, organizationId, chatMessageId);
  if (!row || row.direction !== 'OUTBOUND') return false;
  const current = row.status;
  const forward =
    status === 'FAILED'
      ? current !== 'READ' && current !== 'FAILED'
      : current !== 'FAILED' && STATUS_RANK[status] > STATUS_RANK[current];
  if (!forward) return false;
  await store.updateMessage(tx, organizationId, row.id, {
    status,
    failureReason:
      status === 'FAILED' ? (failureReason ?? 'reported as failed by the messaging platform') : null,
  });
  const message = await messageOf(tx, organizationId, row.id);
  await recordEvent(tx, {
    type: MessageStatusChanged.type,
    data: { message, previousStatus: current },
    actor,
  });
  return true;
}

/** Words that opt a contact out of messaging when sent alone (SPEC-adjacent, issue 5). */
export const OPT_OUT_KEYWORDS = ['STOP', 'BAJA', 'UNSUBSCRIBE'] as const;

/** True for "stop", "STOP!", " Baja. " and the like: the keyword alone, any case, accents and punctuation ignored. */
export function isOptOutKeyword(text: string): boolean {
  const word = fold(text)
    .replace(/[^a-z]/g, '')
    .toUpperCase();
  return (OPT_OUT_KEYWORDS as readonly string[]).includes(word);
}

export interface InboundInput {
  contact: Contact;
  body: string;
  type: MessageType;
  /** The platform's id; null from the back office. */
  chatMessageId: string | null;
  at: Date;
}

/**
 * Records a message the contact sent, inside the caller's transaction: the message (DELIVERED), the
 * conversation's window (opened until `at` + 24 h), an opt-out when the text is an opt-out keyword
 * (`contact.updated`), the contact's score, and `message.received`. Null for a repeat of a
 * platform id already stored (the platform retries its hooks).
 */
export async function recordInbound(
  tx: Tx,
  organizationId: string,
  input: InboundInput,
  actor: Actor,
): Promise<Message | null> {
  const row = await store.insertMessageUnlessKnown(tx, {
    id: newId('msg'),
    organizationId,
    contactId: input.contact.id,
    chatMessageId: input.chatMessageId,
    direction: 'INBOUND',
    type: input.type,
    body: input.body,
    status: 'DELIVERED',
    createdAt: input.at,
  });
  if (!row) return null;
  const conversation = await store.upsertConversation(tx, {
    id: newId('conv'),
    organizationId,
    contactId: input.contact.id,
    lastInboundAt: input.at,
    lastMessageId: row.id,
    lastMessageAt: input.at,
  });
  if (input.type === 'TEXT' && isOptOutKeyword(input.body)) {
    await optOutContact(tx, organizationId, input.contact.id, actor);
  }
  await recomputeContactScore(tx, organizationId, input.contact.id);
  const contact = await loadContact(tx, organizationId, input.contact.id);
  const message = await messageOf(tx, organizationId, row.id);
  const windowExpiresAt = new Date((conversation.lastInboundAt as Date).getTime() + SERVICE_WINDOW_MS);
  await recordEvent(tx, {
    type: MessageReceived.type,
    data: { message, contact, windowExpiresAt: windowExpiresAt.toISOString() },
    actor,
  });
  return message;
}

/**
 * Records a message from the contact as the platform's hook would (no messaging number needed), at the
 * service's clock, as the caller's (the back office's `…/contacts/{contactId}/inbound-messages`).
 */
export async function receiveMessage(
  db: Database,
  context: MessagingContext,
  caller: Caller,
  contactId: string,
  body: string,
): Promise<Message> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const contact = await loadContact(tx, organizationId, contactId);
    const message = await recordInbound(
      tx,
      organizationId,
      { contact, body, type: 'TEXT', chatMessageId: null, at: context.clock() },
      actorOf(caller),
    );
    if (!message) throw Errors.internal(new Error('a back-office inbound message collided'));
    return message;
  });
}
