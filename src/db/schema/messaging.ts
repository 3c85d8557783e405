import { sql } from 'drizzle-orm';
import {
  boolean,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { tenantId } from './platform.ts';
import { createdAt, updatedAt } from './columns.ts';
import { agents } from './portal.ts';
import { contacts } from './contacts.ts';

// ---------------------------------------------------------------------------------------------
// Conversations over the messaging channel (issue 5). Glossary
// - messaging number: the agency's business number on the messaging platform; at most one active
//   per organization (partial unique index). `provider_number_id` is the platform's id of it.
// - template: a pre-approved message with `{{variables}}`; only APPROVED ones may be sent.
// - conversation: one per contact, created by its first message; `mode` HUMAN when a person has
//   taken it over in the inbox (the API then never sends), `blocked` when the agency blocked it.
// - window: the 24 hours after the contact's last inbound message, when free text may be sent.
// - message: one row per message either way; an outbound one goes QUEUED -> SENT (or FAILED), then
//   DELIVERED and READ as the platform reports receipts.
// ---------------------------------------------------------------------------------------------

// The value sets of this area's text columns: each column is typed with its set (`$type`, no SQL of its
// own), and the features' schemas and mappers use the same lists.

export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED'] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];
/** Who handles the conversation: the API (AUTOMATED) or a person who took it over in the inbox. */
export const CONVERSATION_MODES = ['AUTOMATED', 'HUMAN'] as const;
export type ConversationMode = (typeof CONVERSATION_MODES)[number];
export const MESSAGE_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];
/** OTHER: an inbound image, location, ...; its body names the kind (`[image]`). */
export const MESSAGE_TYPES = ['TEXT', 'TEMPLATE', 'OTHER'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
/** An outbound message: QUEUED, then SENT or FAILED, then DELIVERED and READ as receipts arrive. */
export const MESSAGE_STATUSES = ['QUEUED', 'SENT', 'DELIVERED', 'READ', 'FAILED'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const messagingNumbers = pgTable(
  'messaging_numbers',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    /** E.164. */
    phone: text('phone').notNull(),
    providerNumberId: text('provider_number_id').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('messaging_numbers_organization_id_phone_key').on(t.organizationId, t.phone),
    uniqueIndex('messaging_numbers_one_active_key').on(t.organizationId).where(sql`active`),
    index('messaging_numbers_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
    // The messaging platform's hook names the number by id before the organization is known
    // (messaging-hook): not unique on its own, the key is (organization_id, id).
    index('messaging_numbers_id_idx').on(t.id),
  ],
);

export const messageTemplates = pgTable(
  'message_templates',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category').$type<TemplateCategory>().notNull(),
    body: text('body').notNull(),
    /** Variable names of the body, in order of first appearance. */
    variables: text('variables').array().notNull().default(sql`'{}'::text[]`),
    status: text('status').$type<TemplateStatus>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('message_templates_organization_id_name_language_key').on(
      t.organizationId,
      t.name,
      t.language,
    ),
    index('message_templates_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
  ],
);

export const conversations = pgTable(
  'conversations',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    mode: text('mode').$type<ConversationMode>().notNull().default('AUTOMATED'),
    blocked: boolean('blocked').notNull().default(false),
    lastInboundAt: timestamp('last_inbound_at', { withTimezone: true, mode: 'date' }),
    lastMessageId: text('last_message_id'),
    lastMessageAt: timestamp('last_message_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'conversations_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    uniqueIndex('conversations_organization_id_contact_id_key').on(t.organizationId, t.contactId),
    // GET /v1/conversations: most recent first, the id breaking ties.
    index('conversations_organization_id_last_message_at_idx').on(
      t.organizationId,
      t.lastMessageAt.desc(),
      t.id.desc(),
    ),
    index('conversations_contact_id_idx').on(t.contactId),
  ],
);

export const messages = pgTable(
  'messages',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    contactId: text('contact_id').notNull(),
    /** The platform's id (outbound: once sent; inbound: as received). */
    chatMessageId: text('chat_message_id'),
    direction: text('direction').$type<MessageDirection>().notNull(),
    type: text('type').$type<MessageType>().notNull(),
    /** Free text, or the template's body with its `{{variables}}`. */
    body: text('body').notNull(),
    renderedBody: text('rendered_body'),
    status: text('status').$type<MessageStatus>().notNull(),
    templateId: text('template_id'),
    variables: jsonb('variables').$type<Record<string, string>>(),
    usage: jsonb('usage').$type<{ category: TemplateCategory; billable: boolean }>(),
    agentId: text('agent_id'),
    /** Why the platform refused it (FAILED). */
    failureReason: text('failure_reason'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    foreignKey({
      name: 'messages_contact_id_contacts_id_fk',
      columns: [t.organizationId, t.contactId],
      foreignColumns: [contacts.organizationId, contacts.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'messages_template_id_message_templates_id_fk',
      columns: [t.organizationId, t.templateId],
      foreignColumns: [messageTemplates.organizationId, messageTemplates.id],
    }).onDelete('set null'),
    foreignKey({
      name: 'messages_agent_id_agents_id_fk',
      columns: [t.organizationId, t.agentId],
      foreignColumns: [agents.organizationId, agents.id],
    }).onDelete('set null'),
    index('messages_contact_id_created_at_idx').on(t.contactId, t.createdAt.desc(), t.id.desc()),
    index('messages_organization_id_created_at_idx').on(t.organizationId, t.createdAt),
    // Receipts and inbound retries find a message by the platform's id.
    uniqueIndex('messages_organization_id_chat_message_id_key').on(t.organizationId, t.chatMessageId),
    // The sweep of sends a crash interrupted (jobs.ts): QUEUED is a state of seconds.
    index('messages_queued_created_at_idx').on(t.createdAt).where(sql`status = 'QUEUED'`),
    index('messages_template_id_idx').on(t.templateId),
    index('messages_agent_id_idx').on(t.agentId),
  ],
);

export type MessagingNumberRow = typeof messagingNumbers.$inferSelect;
export type MessageTemplateRow = typeof messageTemplates.$inferSelect;
export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
