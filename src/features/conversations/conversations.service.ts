import type { Database, Tx } from '../../db/database.ts';
import type { ConversationRow, MessageTemplateRow } from '../../db/schema.ts';
import { actorOf, type Principal } from '../../platform/auth/principal.ts';
import { AppError, Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { fold } from '../../platform/text/fold.ts';
import { inTenantOrganization } from '../admin/admin.service.ts';
import { isAgentOf } from '../agents/agents.service.ts';
import { findContactInTx, optOutContact, recomputeContactScore } from '../contacts/contacts.service.ts';
import type { Contact } from '../contacts/contacts.schema.ts';
import { MessageReceived, MessageSent, MessageStatusChanged } from './conversations.events.ts';
import { sandboxProvider, type MessagingProvider, type OutboundMessage } from './conversations.provider.ts';
import {
  MAX_MESSAGE_LENGTH,
  type Conversation,
  type ConversationMode,
  type Message,
  type MessageDirection,
  type MessageStatus,
  type MessageType,
  type MessagingMode,
  type PageQuery,
  type SendMessageBody,
  type TemplateCategory,
  type UpdateConversationBody,
} from './conversations.schema.ts';
import * as store from './conversations.store.ts';

/** SPEC.md "Limits": the service window after the contact's last inbound message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** What the messaging routes need besides the database: the platform client and the clock. */
export interface MessagingContext {
  /** The configured platform (MESSAGING_PROVIDER); test organizations always use the sandbox. */
  provider: MessagingProvider;
  /** Now; tests inject a clock to cross the 24-hour boundary. */
  clock: () => Date;
}

/** Back-office actions are recorded with a SYSTEM actor (the operator). */
const OPERATOR: Actor = { kind: 'SYSTEM', userId: null };
/** Receipts are the platform speaking (the sandbox's simulated ones too). */
export const PLATFORM: Actor = { kind: 'INTEGRATION', userId: null };

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

export function toMessage(record: store.MessageRecord): Message {
  const { row } = record;
  return {
    id: row.id,
    chatMessageId: row.chatMessageId,
    channel: 'MESSAGING',
    direction: row.direction as MessageDirection,
    type: row.type as MessageType,
    body: row.body,
    renderedBody: row.renderedBody,
    status: row.status as MessageStatus,
    timestamp: row.createdAt.toISOString(),
    contactId: row.contactId,
    agentId: row.agentId,
    agent:
      row.agentId !== null && record.agentFirstName !== null
        ? { id: row.agentId, firstName: record.agentFirstName, lastName: record.agentLastName ?? '' }
        : null,
    templateId: row.templateId,
    usage: row.usage
      ? { category: row.usage.category as TemplateCategory, billable: row.usage.billable }
      : null,
    failureReason: row.failureReason,
  };
}

// ---------------------------------------------------------------------------------------------
// Messaging modes (SPEC.md "Messaging modes"): BLOCKED > HUMAN_AGENT_ONLY > FREE_FORM > TEMPLATE_ONLY.

interface ModeInput {
  contact: Pick<Contact, 'id' | 'phone' | 'optedOut'>;
  conversation: Pick<ConversationRow, 'mode' | 'blocked' | 'lastInboundAt'> | null;
}

interface ModeResolution {
  mode: MessagingMode;
  windowExpiresAt: Date | null;
  /** Why, in words, for the 409's message. */
  why: string;
}

/** What the API may send to a contact at `now`, and when the service window ends (or ended). */
export function resolveMessagingMode({ contact, conversation }: ModeInput, now: Date): ModeResolution {
  const lastInbound = conversation?.lastInboundAt ?? null;
  const windowExpiresAt = lastInbound ? new Date(lastInbound.getTime() + SERVICE_WINDOW_MS) : null;
  if (contact.optedOut) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `Contact ${contact.id} opted out of messages` };
  }
  if (conversation?.blocked) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `The number of contact ${contact.id} is blocked` };
  }
  if (!contact.phone) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `Contact ${contact.id} has no phone number` };
  }
  if (conversation?.mode === 'HUMAN') {
    return {
      mode: 'HUMAN_AGENT_ONLY',
      windowExpiresAt,
      why: 'A person has taken over this conversation in the inbox; the API does not send until it is handed back',
    };
  }
  if (windowExpiresAt && now.getTime() < windowExpiresAt.getTime()) {
    return { mode: 'FREE_FORM', windowExpiresAt, why: 'The 24-hour service window is open' };
  }
  return {
    mode: 'TEMPLATE_ONLY',
    windowExpiresAt,
    why: windowExpiresAt
      ? `The 24-hour service window closed at ${windowExpiresAt.toISOString()}`
      : 'The contact has never written, so the 24-hour service window has not opened',
  };
}

function conflict(resolution: ModeResolution, message: string, withWindow: boolean): AppError {
  const extra: Record<string, unknown> = { reason: resolution.mode };
  if (withWindow) extra.windowExpiresAt = iso(resolution.windowExpiresAt);
  return Errors.conflict(message, extra);
}

// ---------------------------------------------------------------------------------------------
// Templates: `{{name}}` variables.

const VARIABLE = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** The variable names of a template body, in order of first appearance. */
export function templateVariables(body: string): string[] {
  return [...new Set([...body.matchAll(VARIABLE)].map((m) => m[1] as string))];
}

/**
 * The template's body with its variables filled in: a 400 naming `body.variables.<name>` for a
 * missing value or a value the template has no place for.
 */
export function renderTemplate(
  template: Pick<MessageTemplateRow, 'name' | 'body'>,
  values: Record<string, string>,
) {
  const names = templateVariables(template.body);
  for (const name of names) {
    if (values[name] === undefined) {
      throw Errors.invalidField(`body.variables.${name}`, `is required by template ${template.name}`);
    }
  }
  for (const name of Object.keys(values)) {
    if (!names.includes(name)) {
      throw Errors.invalidField(`body.variables.${name}`, `is not a variable of template ${template.name}`);
    }
  }
  const rendered = template.body.replace(VARIABLE, (_m, name: string) => values[name] as string);
  if (rendered.length > MAX_MESSAGE_LENGTH) {
    throw Errors.invalidField(
      'body.variables',
      `make the message longer than ${MAX_MESSAGE_LENGTH} characters`,
    );
  }
  return rendered;
}

// ---------------------------------------------------------------------------------------------
// Sending (POST /v1/conversations/{contactId}/messages).

async function loadContact(tx: Tx, organizationId: string, contactId: string): Promise<Contact> {
  const contact = isId(contactId, 'ct') ? await findContactInTx(tx, organizationId, contactId) : null;
  // Another organization's contact is as missing as one that never existed.
  if (!contact) throw Errors.notFound('Contact', contactId);
  return contact;
}

/** Who sends: the organization acted on, the agent a key is bound to, and the events' actor. */
export interface Sender {
  organizationId: string;
  /** False for a test twin: the sandbox then stands in for the platform whatever is configured. */
  livemode: boolean;
  agentId: string | null;
  actor: Actor;
}

function senderOfPrincipal(principal: Principal): Sender {
  return {
    organizationId: principal.organization.id,
    livemode: principal.organization.livemode,
    agentId: principal.agentId,
    actor: actorOf(principal),
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
  if (body.body !== undefined && body.templateId !== undefined) {
    throw Errors.invalidField('body.templateId', 'cannot be sent with body: send free text or a template');
  }
  if (body.variables !== undefined && body.templateId === undefined) {
    throw Errors.invalidField('body.variables', 'are only for a template (templateId)');
  }
  if (body.body !== undefined && body.body.trim() === '') {
    throw Errors.invalidField('body.body', 'must not be blank');
  }
  const contact = await loadContact(tx, organizationId, contactId);
  const number = await store.findActiveMessagingNumber(tx, organizationId);
  if (!number) throw Errors.notFound('Active messaging number of this organization');
  const conversation = await store.findConversation(tx, organizationId, contact.id);
  const resolution = resolveMessagingMode({ contact, conversation }, now);

  if (resolution.mode === 'BLOCKED' || resolution.mode === 'HUMAN_AGENT_ONLY') {
    throw conflict(resolution, resolution.why, false);
  }
  let template: MessageTemplateRow | null = null;
  if (body.templateId !== undefined) {
    template = isId(body.templateId, 'tpl')
      ? await store.findMessageTemplateById(tx, organizationId, body.templateId)
      : null;
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

async function messageOf(tx: Tx, organizationId: string, id: string): Promise<Message> {
  const record = await store.findMessageRecord(tx, organizationId, id);
  if (!record) throw Errors.internal(new Error(`message ${id} vanished`));
  return toMessage(record);
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
  principal: Principal,
  contactId: string,
  body: SendMessageBody,
  idempotencyKey?: string,
): Promise<Message> {
  return deliver(db, context, senderOfPrincipal(principal), contactId, body, idempotencyKey);
}

/**
 * Sends as the agency itself (no key), with the same rules: the demo seed's replies. Test twins and
 * the sandbox behave as for a key.
 */
export async function sendAsOrganization(
  db: Database,
  context: MessagingContext,
  organization: { id: string; livemode: boolean },
  contactId: string,
  body: SendMessageBody,
): Promise<Message> {
  const sender = {
    organizationId: organization.id,
    livemode: organization.livemode,
    agentId: null,
    actor: OPERATOR,
  };
  return deliver(db, context, sender, contactId, body);
}

async function deliver(
  db: Database,
  context: MessagingContext,
  sender: Sender,
  contactId: string,
  body: SendMessageBody,
  idempotencyKey?: string,
): Promise<Message> {
  const { organizationId, actor } = sender;
  const now = context.clock();
  const queued = await db.tenantTx(organizationId, (tx) => queueMessage(tx, sender, contactId, body, now));

  const provider = sender.livemode ? context.provider : sandboxProvider;
  const result = await provider.send({ ...queued.outbound, idempotencyKey });

  const message = await db.tenantTx(organizationId, async (tx) => {
    if (!result.ok) {
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
    await recordEvent(tx, { type: MessageSent.type, data: { message: sent }, actor });
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
  const current = row.status as MessageStatus;
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
 * POST /admin/v1/organizations/{orgId}/contacts/{contactId}/inbound-messages: records a message from
 * the contact as the platform's hook would (no messaging number needed), at the service's clock.
 */
export async function recordAdminInbound(
  db: Database,
  context: MessagingContext,
  organizationId: string,
  contactId: string,
  body: string,
): Promise<Message> {
  if (body.trim() === '') throw Errors.invalidField('body.body', 'must not be blank');
  return inTenantOrganization(db, organizationId, async (tx) => {
    const contact = await loadContact(tx, organizationId, contactId);
    const message = await recordInbound(
      tx,
      organizationId,
      { contact, body, type: 'TEXT', chatMessageId: null, at: context.clock() },
      OPERATOR,
    );
    if (!message) throw Errors.internal(new Error('a back-office inbound message collided'));
    return message;
  });
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
    mode: (conversation?.mode ?? 'AUTOMATED') as ConversationMode,
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
  organizationId: string,
  query: PageQuery,
): Promise<{ data: Conversation[]; meta: PageMeta }> {
  const page = pageRequest(query);
  const now = context.clock();
  const { items, total } = await db.tenantTx(organizationId, (tx) =>
    store.listConversations(tx, organizationId, page),
  );
  return {
    data: items.map((item) => toConversation(item.contact, item.conversation, item.lastMessage, now)),
    meta: pageMeta(total, page),
  };
}

/** GET /v1/conversations/{contactId}: the state of one contact's conversation (one before the first message too). */
export async function getConversation(
  db: Database,
  context: MessagingContext,
  organizationId: string,
  contactId: string,
): Promise<Conversation> {
  return db.tenantTx(organizationId, (tx) => conversationOf(tx, organizationId, contactId, context.clock()));
}

/** GET /v1/conversations/{contactId}/messages: the contact's messages, newest first. */
export async function listContactMessages(
  db: Database,
  organizationId: string,
  contactId: string,
  query: PageQuery,
): Promise<{ data: Message[]; meta: PageMeta }> {
  const page = pageRequest(query);
  return db.tenantTx(organizationId, async (tx) => {
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
  organizationId: string,
  contactId: string,
  limit: number,
): Promise<Message[]> {
  const size = Math.min(100, Math.max(1, Math.trunc(limit)));
  return db.tenantTx(organizationId, async (tx) => {
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

/** Back office: one contact's conversation. */
export async function getAdminConversation(
  db: Database,
  context: MessagingContext,
  organizationId: string,
  contactId: string,
): Promise<Conversation> {
  return inTenantOrganization(db, organizationId, (tx) =>
    conversationOf(tx, organizationId, contactId, context.clock()),
  );
}

/**
 * Back office: a person takes the conversation over (`mode: HUMAN`; the API then answers 409
 * HUMAN_AGENT_ONLY) or hands it back (`AUTOMATED`), or blocks the number (409 BLOCKED).
 */
export async function updateAdminConversation(
  db: Database,
  context: MessagingContext,
  organizationId: string,
  contactId: string,
  body: UpdateConversationBody,
): Promise<Conversation> {
  return inTenantOrganization(db, organizationId, async (tx) => {
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
