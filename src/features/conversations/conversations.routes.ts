import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { PageQuerySchema } from '../../platform/http/pagination.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import {
  ContactIdParamsSchema,
  ConversationListResponseSchema,
  ConversationResponseSchema,
  InboundMessageBodySchema,
  MessageListResponseSchema,
  MessageResponseSchema,
  OrgContactParamsSchema,
  SendMessageBodySchema,
  UpdateConversationBodySchema,
} from './conversations.schema.ts';
import * as conversations from './conversations.service.ts';
import * as inbound from './conversations.inbound.ts';
import * as send from './conversations.send.ts';

const READ = { auth: { scope: 'conversations:read', keyTypes: SECRET_KEYS, write: false } } as const;
const SEND = { auth: { scope: 'messages:write', keyTypes: ['secret'], write: true } } as const;
const ADMIN = { admin: true } as const;
const TAGS = ['Conversations'];
const ADMIN_TAGS = ['Admin: conversations'];

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
  'never opened), so a client can check `canSendFreeForm` before it sends.';

const ADMIN_NOT_FOUND = '404 when the organization is unknown or the contact is not one of its.';

/** Conversations over the messaging channel: the v1 API and the back office's inbox controls. */
export const conversationsRoutes: FeaturePlugin = async (app, context) => {
  const { db } = context;
  const messaging = conversations.messagingContext(context);
  app.get(
    '/v1/conversations',
    {
      config: READ,
      schema: {
        operationId: 'conversations.list',
        summary: 'List conversations with their messaging state',
        description:
          'One item per contact who has exchanged messages, the most recent first: the last message, who ' +
          'handles it (`mode`), what the API may send now (`messagingMode`, `canSendFreeForm`) and when the ' +
          'service window closes (`windowExpiresAt`).',
        tags: TAGS,
        querystring: PageQuerySchema,
        response: { 200: ConversationListResponseSchema },
      },
    },
    async (request) =>
      conversations.listConversations(db, messaging, callerOf(request).organization.id, request.query),
  );

  app.get(
    '/v1/conversations/:contactId',
    {
      config: READ,
      schema: {
        operationId: 'conversations.get',
        summary: "A contact's conversation state",
        description: CONVERSATION_DESCRIPTION,
        tags: TAGS,
        params: ContactIdParamsSchema,
        response: { 200: ConversationResponseSchema },
      },
    },
    async (request) => ({
      data: await conversations.getConversation(
        db,
        messaging,
        callerOf(request).organization.id,
        request.params.contactId,
      ),
    }),
  );

  app.get(
    '/v1/conversations/:contactId/messages',
    {
      config: READ,
      schema: {
        operationId: 'conversations.messages.list',
        summary: "A contact's messages, newest first",
        description:
          'Secret or read-only secret key with `conversations:read`. Every message with the contact, both ' +
          'directions, newest first, failed sends included (`status` FAILED, `failureReason`); paged ' +
          "(`pageSize` 20 by default, at most 100). 404 when the contact is not the organization's; no " +
          'messages yet is `data: []`.',
        tags: TAGS,
        params: ContactIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: MessageListResponseSchema },
      },
    },
    async (request) =>
      conversations.listContactMessages(
        db,
        callerOf(request).organization.id,
        request.params.contactId,
        request.query,
      ),
  );

  app.post(
    '/v1/conversations/:contactId/messages',
    {
      config: SEND,
      schema: {
        operationId: 'conversations.messages.send',
        summary: 'Send a message to a contact',
        description: SEND_DESCRIPTION,
        tags: TAGS,
        params: ContactIdParamsSchema,
        body: SendMessageBodySchema,
        response: {
          201: MessageResponseSchema,
          409: ref(ErrorResponseSchema),
          502: ref(ErrorResponseSchema),
        },
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const header = request.headers['idempotency-key'];
      // Scoped to the organization so two tenants' keys never meet at the platform.
      const idempotencyKey = typeof header === 'string' ? `${caller.organization.id}:${header}` : undefined;
      const message = await send.sendMessage(
        db,
        messaging,
        caller,
        request.params.contactId,
        request.body,
        idempotencyKey,
      );
      return reply.code(201).send({ data: message });
    },
  );

  app.get(
    '/admin/v1/organizations/:orgId/conversations/:contactId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.conversations.get',
        summary: "A contact's conversation state",
        description: `Admin bearer token. ${CONVERSATION_DESCRIPTION} ${ADMIN_NOT_FOUND}`,
        tags: ADMIN_TAGS,
        params: OrgContactParamsSchema,
        response: { 200: ConversationResponseSchema },
      },
    },
    async (request) => ({
      data: await conversations.getAdminConversation(
        db,
        messaging,
        request.params.orgId,
        request.params.contactId,
      ),
    }),
  );

  app.patch(
    '/admin/v1/organizations/:orgId/conversations/:contactId',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.conversations.update',
        summary: 'Take a conversation over, hand it back, or block the number',
        description:
          '`mode: HUMAN` means a person handles it in the inbox: the API answers 409 HUMAN_AGENT_ONLY until ' +
          '`mode: AUTOMATED` hands it back. `blocked: true` makes every send 409 BLOCKED.',
        tags: ADMIN_TAGS,
        params: OrgContactParamsSchema,
        body: UpdateConversationBodySchema,
        response: { 200: ConversationResponseSchema },
      },
    },
    async (request) => ({
      data: await conversations.updateAdminConversation(
        db,
        messaging,
        request.params.orgId,
        request.params.contactId,
        request.body,
      ),
    }),
  );

  app.post(
    '/admin/v1/organizations/:orgId/contacts/:contactId/inbound-messages',
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.conversations.inbound',
        summary: 'Record a message received from the contact',
        description:
          "Does what the platform's inbound hook does, without a platform: stores the message, opens the " +
          '24-hour service window, opts the contact out on STOP, BAJA or UNSUBSCRIBE, raises the score and ' +
          'records `message.received`.',
        tags: ADMIN_TAGS,
        params: OrgContactParamsSchema,
        body: InboundMessageBodySchema,
        response: { 201: MessageResponseSchema },
      },
    },
    async (request, reply) =>
      reply.code(201).send({
        data: await inbound.recordAdminInbound(
          db,
          messaging,
          request.params.orgId,
          request.params.contactId,
          request.body.body,
        ),
      }),
  );
};
