// Sending: POST /v1/conversations/{contactId}/messages, the reminders' sends, and the sweep of sends a crash interrupted.
import type { Database, Tx } from '../../db/database.ts';
import type { MessageTemplateRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { OPERATOR_ACTOR } from '../../platform/auth/credentials.ts';
import { AppError, Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { checkpoint, keepIfFailed, resumedAt, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { isAgentOf } from '../agents/index.ts';
import { type Contact } from '../contacts/index.ts';
import { MessageSent, MessageStatusChanged } from './conversations.events.ts';
import { sandboxProvider, type OutboundMessage } from './conversations.provider.ts';
import { type Message, type SendMessageBody } from './conversations.schema.ts';
import * as store from './conversations.store.ts';
import { findActiveMessagingNumber, findMessageTemplate } from '../messaging-setup/index.ts';
import { loadContact, messageOf, PLATFORM, type MessagingContext } from './conversations.service.ts';
import { conflict, renderTemplate, resolveMessagingMode } from './conversations.modes.ts';
import { applyStatus } from './conversations.inbound.ts';

// ---------------------------------------------------------------------------------------------
// Sending (POST /v1/conversations/{contactId}/messages).

/** Who sends: the organization acted on, the agent a key is bound to, and the events' actor. */
export interface Sender {
  organizationId: string;
  /** False for a test twin: the sandbox then stands in for the platform whatever is configured. */
  livemode: boolean;
  agentId: string | null;
  actor: Actor;
  /** Opens a transaction of the organization: the caller's, or a worker's own (no request caller). */
  write: <T>(work: (tx: Tx) => Promise<T>) => Promise<T>;
}

function senderOfCaller(db: Database, caller: Caller): Sender {
  return {
    organizationId: caller.organization.id,
    livemode: caller.organization.livemode,
    agentId: caller.agentId,
    actor: actorOf(caller),
    write: (work) => writeAs(db, caller, work),
  };
}

/** The agent shown as sender: the key's agent when it is bound to one (and still exists), else the contact's owner. */
async function agentOf(tx: Tx, sender: Sender, contact: Contact) {
  if (sender.agentId && (await isAgentOf(tx, sender.organizationId, sender.agentId))) return sender.agentId;
  return contact.ownerId;
}

interface QueuedSend {
  messageId: string;
  outbound: OutboundMessage;
}

/** Transaction 1: every rule, then the message stored QUEUED. Nothing is recorded as sent yet. */
async function queueMessage(
  tx: Tx,
  sender: Sender,
  contactId: string,
  body: SendMessageBody,
  now: Date,
): Promise<QueuedSend> {
  const organizationId = sender.organizationId;
  // The schema (SendMessageBody) refused both shapes at once, stray variables and a blank body.
  const contact = await loadContact(tx, organizationId, contactId);
  const number = await findActiveMessagingNumber(tx, organizationId);
  if (!number) throw Errors.notFound('Active messaging number of this organization');
  const conversation = await store.findConversation(tx, organizationId, contact.id);
  const resolution = resolveMessagingMode({ contact, conversation }, now);

  if (resolution.mode === 'BLOCKED' || resolution.mode === 'HUMAN_AGENT_ONLY') {
    throw conflict(resolution, resolution.why, false);
  }
  let template: MessageTemplateRow | null = null;
  if (body.templateId !== undefined) {
    template = await findMessageTemplate(tx, organizationId, body.templateId);
    if (!template) {
      throw Errors.invalidField('body.templateId', 'does not name a template of this organization');
    }
    if (template.status !== 'APPROVED') {
      const open = resolution.mode === 'FREE_FORM';
      const message =
        `Template ${template.name} is ${template.status}, not APPROVED: it cannot be sent` +
        (open ? '. The service window is open: send free text in body' : `. ${resolution.why}`);
      throw conflict(open ? resolution : { ...resolution, mode: 'TEMPLATE_ONLY' }, message, !open);
    }
  } else if (resolution.mode === 'TEMPLATE_ONLY') {
    throw conflict(resolution, `${resolution.why}: only an APPROVED template (templateId) can be sent`, true);
  } else if (body.body === undefined) {
    throw Errors.invalidField('body.body', 'is required (free text), or send templateId');
  }

  const variables = body.variables ?? {};
  const renderedBody = template ? renderTemplate(template, variables) : null;
  const message = await store.insertMessageUnlessKnown(tx, {
    id: newId('msg'),
    organizationId,
    contactId: contact.id,
    direction: 'OUTBOUND',
    type: template ? 'TEMPLATE' : 'TEXT',
    body: template ? template.body : (body.body as string),
    renderedBody,
    status: 'QUEUED',
    templateId: template?.id ?? null,
    variables: template ? variables : null,
    // Template messages are what the platform charges for; free text inside the window is not.
    usage: template ? { category: template.category, billable: true } : null,
    agentId: await agentOf(tx, sender, contact),
    createdAt: now,
  });
  if (!message) throw Errors.internal(new Error('a new outbound message collided on its platform id'));
  return {
    messageId: message.id,
    outbound: {
      phoneNumberId: number.providerNumberId,
      to: contact.phone as string,
      text: template ? undefined : message.body,
      template: template ? { name: template.name, language: template.language, variables } : undefined,
    },
  };
}

/** The recovery point of a send (decision 0246): the message is stored QUEUED, the platform not yet called. */
const MESSAGE_QUEUED = 'message_queued';

/**
 * A send resumed by a retry after a crash past its recovery point: the message the first attempt
 * stored, and what the platform is given again (with the same idempotency key, so it sends once);
 * or the message as it stands when it is no longer QUEUED (the sweep settled it FAILED).
 */
async function resumeQueued(tx: Tx, sender: Sender, messageId: string): Promise<QueuedSend | Message> {
  const { organizationId } = sender;
  const record = (await store.findMessageRecord(tx, organizationId, messageId))?.row;
  if (!record) throw Errors.internal(new Error(`message ${messageId} vanished`));
  if (record.status !== 'QUEUED') return messageOf(tx, organizationId, messageId);
  const contact = await loadContact(tx, organizationId, record.contactId);
  const number = await findActiveMessagingNumber(tx, organizationId);
  if (!number) throw Errors.notFound('Active messaging number of this organization');
  const template = record.templateId
    ? await findMessageTemplate(tx, organizationId, record.templateId)
    : null;
  return {
    messageId,
    outbound: {
      phoneNumberId: number.providerNumberId,
      to: contact.phone as string,
      text: template ? undefined : record.body,
      template: template
        ? { name: template.name, language: template.language, variables: record.variables ?? {} }
        : undefined,
    },
  };
}

/**
 * Sends a message to a contact (SPEC.md rules 1-6). Three steps so no transaction stays open while
 * the platform is called: (1) the rules, and the message stored QUEUED; (2) the platform call;
 * (3) SENT with its platform id, the conversation's last message and `message.sent` — or FAILED,
 * `message.status_changed`, nothing else, and a 502 MESSAGING_ERROR (which the idempotency layer
 * does not store, so the client may retry with the same Idempotency-Key).
 */
export async function sendMessage(
  db: Database,
  context: MessagingContext,
  caller: Caller,
  contactId: string,
  body: SendMessageBody,
  idempotencyKey?: string,
): Promise<Message> {
  return deliver(context, senderOfCaller(db, caller), contactId, body, { idempotencyKey });
}

/** How a send is told apart from its repeats, and what commits with its success. */
export interface SendOptions {
  /**
   * The same for every attempt at the same message: given to the platform (its idempotency key) and
   * carried by `message.sent` as `dedupeKey`, so the platform or a receiver can drop a repeat.
   */
  idempotencyKey?: string;
  /**
   * Runs in the transaction that records the message SENT and `message.sent`, so the caller's own
   * record of the send commits with it or not at all (a reminder settled SENT with its message).
   */
  onSent?: (tx: Tx, message: Message) => Promise<void>;
}

/**
 * Sends as the agency itself from a worker job, with no request caller (appointment reminders, with an
 * `idempotencyKey` for the platform), by the same rules, recorded as the operator's (SYSTEM). Test twins
 * and the sandbox behave as for a key. A request sends with `sendMessage` and its caller.
 */
export async function sendAsOrganization(
  db: Database,
  context: MessagingContext,
  organization: { id: string; livemode: boolean },
  contactId: string,
  body: SendMessageBody,
  options: SendOptions = {},
): Promise<Message> {
  const sender: Sender = {
    organizationId: organization.id,
    livemode: organization.livemode,
    agentId: null,
    actor: OPERATOR_ACTOR,
    // eslint-disable-next-line no-restricted-syntax -- a worker job's send (reminders): no request caller.
    write: (work) => db.tenantTx(organization.id, work),
  };
  return deliver(context, sender, contactId, body, options);
}

async function deliver(
  context: MessagingContext,
  sender: Sender,
  contactId: string,
  body: SendMessageBody,
  { idempotencyKey, onSent }: SendOptions,
): Promise<Message> {
  const { organizationId, actor } = sender;
  const now = context.clock();
  const resumed = resumedAt<{ messageId: string }>(MESSAGE_QUEUED);
  const queued = resumed
    ? await sender.write((tx) => resumeQueued(tx, sender, resumed.messageId))
    : await sender.write((tx) => queueMessage(tx, sender, contactId, body, now));
  if (!('outbound' in queued)) {
    if (queued.status !== 'FAILED') return queued;
    keepIfFailed();
    throw new AppError(
      'MESSAGING_ERROR',
      `The message could not be sent: ${queued.failureReason ?? 'unknown'}`,
      {
        extra: { messageId: queued.id },
      },
    );
  }
  // Under an Idempotency-Key the message commits QUEUED before the platform is called, with the
  // recovery point a retry after a crash resumes from (a no-op for the worker's sends).
  await checkpoint(MESSAGE_QUEUED, { messageId: queued.messageId });

  const provider = sender.livemode ? context.provider : sandboxProvider;
  const result = await provider.send({ ...queued.outbound, idempotencyKey });

  const message = await sender.write(async (tx) => {
    if (!result.ok) {
      // The failure stands though the request answers 502 (its key is released with it).
      keepIfFailed();
      await store.updateMessage(tx, organizationId, queued.messageId, {
        status: 'FAILED',
        failureReason: result.reason,
      });
      const failed = await messageOf(tx, organizationId, queued.messageId);
      await recordEvent(tx, {
        type: MessageStatusChanged.type,
        data: { message: failed, previousStatus: 'QUEUED' },
        actor,
      });
      return failed;
    }
    const row = await store.updateMessage(tx, organizationId, queued.messageId, {
      status: 'SENT',
      chatMessageId: result.chatMessageId,
    });
    if (!row) throw Errors.internal(new Error(`message ${queued.messageId} vanished`));
    await store.upsertConversation(tx, {
      id: newId('conv'),
      organizationId,
      contactId: row.contactId,
      lastMessageId: row.id,
      lastMessageAt: row.createdAt,
    });
    const sent = await messageOf(tx, organizationId, row.id);
    await recordEvent(tx, {
      type: MessageSent.type,
      data: { message: sent, dedupeKey: idempotencyKey ?? null },
      actor,
    });
    if (onSent) await onSent(tx, sent);
    if (provider.simulatesReceipts) {
      // The sandbox stands in for the platform's receipt too (same transaction: nothing can fail
      // after the answer is decided), so integrations see the whole life cycle.
      await applyStatus(tx, organizationId, result.chatMessageId, 'DELIVERED', null, PLATFORM);
    }
    return sent;
  });

  if (!result.ok) {
    throw new AppError('MESSAGING_ERROR', `The message could not be sent: ${result.reason}`, {
      extra: { messageId: message.id },
    });
  }
  return message;
}

/** A send interrupted between its two transactions (a crash) is settled after this long. */
export const STALE_QUEUED_MS = 5 * 60_000;
const STALE_BATCH = 100;

/**
 * Worker job: outbound messages left QUEUED by a process that died between storing them and
 * recording the platform's answer become FAILED ("outcome unknown": the platform may have sent
 * them), with `message.status_changed`, so nothing stays QUEUED for ever. Returns how many.
 */
export async function failInterruptedSends(db: Database, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - STALE_QUEUED_MS);
  let settled = 0;
  for (;;) {
    const stale = await db.systemTx((tx) => store.findStaleQueuedMessages(tx, before, STALE_BATCH));
    for (const { organizationId, id } of stale) {
      // eslint-disable-next-line no-restricted-syntax -- a worker job across tenants: no request caller.
      await db.tenantTx(organizationId, async (tx) => {
        const row = await store.failQueuedMessage(
          tx,
          organizationId,
          id,
          'interrupted before the messaging platform answered; the outcome is unknown',
        );
        if (!row) return;
        await recordEvent(tx, {
          type: MessageStatusChanged.type,
          data: { message: await messageOf(tx, organizationId, id), previousStatus: 'QUEUED' },
          actor: { kind: 'SYSTEM', userId: null },
        });
        settled += 1;
      });
    }
    if (stale.length < STALE_BATCH) return settled;
  }
}
