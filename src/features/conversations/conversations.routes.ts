import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { adminMount, defineOperation, keyMount, mountOperations } from '../../platform/http/operation.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { PageQuerySchema } from '../../platform/http/pagination.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import type { Database } from '../../db/database.ts';
import {
  ContactIdParamsSchema,
  ConversationListResponseSchema,
  ConversationResponseSchema,
  InboundMessageBodySchema,
  MessageListResponseSchema,
  MessageResponseSchema,
  SendMessageBodySchema,
  UpdateConversationBodySchema,
} from './conversations.schema.ts';
import * as conversations from './conversations.service.ts';
import * as inbound from './conversations.inbound.ts';
import * as send from './conversations.send.ts';

const TAGS = ['Conversations'];
const ADMIN = adminMount(['Admin: conversations']);
const READ = keyMount({ scope: 'conversations:read', keyTypes: SECRET_KEYS, write: false }, TAGS);
const SEND = keyMount({ scope: 'messages:write', keyTypes: ['secret'], write: true }, TAGS);

const SEND_DESCRIPTION =
  'Send free text (`body`) while the 24-hour service window is open, or an APPROVED template (`templateId`, ' +
  '`variables`) at any time. The mode is resolved in this order: BLOCKED (the contact opted out, the number ' +
  'is blocked or the contact has no phone), HUMAN_AGENT_ONLY (a person has taken the conversation over), ' +
  'FREE_FORM (the contact wrote less than 24 hours ago), TEMPLATE_ONLY. When the message cannot be sent: 409 ' +
  'CONFLICT with `error.reason` (the mode) and, for TEMPLATE_ONLY, `error.windowExpiresAt` (the end of the ' +
  'last window; null if the contact never wrote). A template that is not APPROVED is a 409 too (reason ' +
  'TEMPLATE_ONLY on a closed window, FREE_FORM on an open one). A missing or unknown template variable is a ' +
  '400 naming it. 404 when the organization has no active messaging number. 502 MESSAGING_ERROR when the ' +
  'messaging platform fails: the message is kept as FAILED (`error.messageId`), nothing else changes, and the ' +
  "same Idempotency-Key may be retried. The sender (`agentId`, `agent`) is the key's agent when the key is " +
  "bound to one, otherwise the contact's owner. Records `message.sent`.";

const CONVERSATION_DESCRIPTION =
  'Answers for any contact of the organization, also before the first message (`id` null, window ' +
  'never opened), so a client can check `canSendFreeForm` before it sends. 404 when the contact is not ' +
  "the organization's (in the back office, also when the organization is unknown).";

/**
 * Conversations over the messaging channel, each operation declared once (decision 0241): the reads and
 * sends on v1, a conversation's state on v1 and in the back office, the inbox controls in the back office.
 */
const operations = (db: Database, messaging: conversations.MessagingContext) => [
  defineOperation({
    id: 'conversations.list',
    method: 'GET',
    path: '/conversations',
    summary: 'List conversations with their messaging state',
    description:
      'One item per contact who has exchanged messages, the most recent first: the last message, who ' +
      'handles it (`mode`), what the API may send now (`messagingMode`, `canSendFreeForm`) and when the ' +
      'service window closes (`windowExpiresAt`).',
    querystring: PageQuerySchema,
    response: { 200: ConversationListResponseSchema },
    mounts: [READ],
    handle: (caller, { query }) => conversations.listConversations(db, messaging, caller, query),
  }),
  defineOperation({
    id: 'conversations.get',
    method: 'GET',
    path: '/conversations/:contactId',
    summary: "A contact's conversation state",
    description: CONVERSATION_DESCRIPTION,
    params: ContactIdParamsSchema,
    response: { 200: ConversationResponseSchema },
    mounts: [READ, ADMIN],
    handle: async (caller, { params }) => ({
      data: await conversations.getConversation(db, messaging, caller, params.contactId),
    }),
  }),
  defineOperation({
    id: 'conversations.messages.list',
    method: 'GET',
    path: '/conversations/:contactId/messages',
    summary: "A contact's messages, newest first",
    description:
      'Every message with the contact, both directions, newest first, failed sends included (`status` ' +
      'FAILED, `failureReason`); paged (`pageSize` 20 by default, at most 100). 404 when the contact is not ' +
      "the organization's; no messages yet is `data: []`.",
    params: ContactIdParamsSchema,
    querystring: PageQuerySchema,
    response: { 200: MessageListResponseSchema },
    mounts: [READ],
    handle: (caller, { params, query }) =>
      conversations.listContactMessages(db, caller, params.contactId, query),
  }),
  defineOperation({
    id: 'conversations.messages.send',
    method: 'POST',
    path: '/conversations/:contactId/messages',
    summary: 'Send a message to a contact',
    description: SEND_DESCRIPTION,
    params: ContactIdParamsSchema,
    body: SendMessageBodySchema,
    response: {
      201: MessageResponseSchema,
      409: ref(ErrorResponseSchema),
      502: ref(ErrorResponseSchema),
    },
    status: 201,
    mounts: [SEND],
    handle: async (caller, { params, body, request }) => {
      const header = request.headers['idempotency-key'];
      // Scoped to the organization so two tenants' keys never meet at the platform.
      const idempotencyKey = typeof header === 'string' ? `${caller.organization.id}:${header}` : undefined;
      return {
        data: await send.sendMessage(db, messaging, caller, params.contactId, body, idempotencyKey),
      };
    },
  }),
  defineOperation({
    id: 'conversations.update',
    method: 'PATCH',
    path: '/conversations/:contactId',
    summary: 'Take a conversation over, hand it back, or block the number',
    description:
      '`mode: HUMAN` means a person handles it in the inbox: the API answers 409 HUMAN_AGENT_ONLY until ' +
      '`mode: AUTOMATED` hands it back. `blocked: true` makes every send 409 BLOCKED.',
    params: ContactIdParamsSchema,
    body: UpdateConversationBodySchema,
    response: { 200: ConversationResponseSchema },
    mounts: [ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await conversations.updateConversation(db, messaging, caller, params.contactId, body),
    }),
  }),
  defineOperation({
    id: 'conversations.inbound',
    method: 'POST',
    path: '/contacts/:contactId/inbound-messages',
    summary: 'Record a message received from the contact',
    description:
      "Does what the platform's inbound hook does, without a platform: stores the message, opens the " +
      '24-hour service window, opts the contact out on STOP, BAJA or UNSUBSCRIBE, raises the score and ' +
      'records `message.received`.',
    params: ContactIdParamsSchema,
    body: InboundMessageBodySchema,
    response: { 201: MessageResponseSchema },
    status: 201,
    mounts: [ADMIN],
    handle: async (caller, { params, body }) => ({
      data: await inbound.receiveMessage(db, messaging, caller, params.contactId, body.body),
    }),
  }),
];

/** Conversations over the messaging channel: every operation on each surface that offers it. */
export const conversationsRoutes: FeaturePlugin = async (app, context) => {
  mountOperations(app, operations(context.db, conversations.messagingContext(context)));
};
