import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
import { callerOf } from '../../platform/auth/auth.plugin.ts';
import { PageQuerySchema } from '../../platform/http/pagination.ts';
import { ErrorResponseSchema, ref, DeletedResponseSchema } from '../../platform/http/schemas.ts';
import { OrganizationIdParamsSchema } from '../../platform/http/schemas.ts';
import {
  CreateMessageTemplateBodySchema,
  CreateMessagingNumberBodySchema,
  MessageTemplateListResponseSchema,
  MessageTemplateResponseSchema,
  MessagingNumberListResponseSchema,
  MessagingNumberResponseSchema,
  OrgNumberParamsSchema,
  OrgTemplateParamsSchema,
  UpdateMessageTemplateBodySchema,
  UpdateMessagingNumberBodySchema,
} from './messaging-setup.schema.ts';
import * as setup from './messaging-setup.service.ts';

const ADMIN = { admin: true } as const;
const TAGS = ['Admin: messaging'];
const DUPLICATE = { 409: ref(ErrorResponseSchema) };

/** The back office's messaging set-up: the messaging number and the message templates. */
export const conversationsSetupRoutes: FastifyPluginAsyncTypebox<{ db: Database }> = async (app, { db }) => {
  const numbers = '/admin/v1/organizations/:orgId/messaging-numbers';
  app.post(
    numbers,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.create',
        summary: 'Add a messaging number',
        description:
          'Active unless `active: false`; at most one number is active per organization (409 DUPLICATE naming ' +
          "the active one). `providerNumberId` is the platform's id of the number (default: the phone's digits). " +
          'The platform sends its notifications to `/hooks/messaging/{id}`.',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateMessagingNumberBodySchema,
        response: { 201: MessagingNumberResponseSchema, ...DUPLICATE },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await setup.createMessagingNumber(db, callerOf(request), request.body) }),
  );
  app.get(
    numbers,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.list',
        summary: "List an organization's messaging numbers",
        description:
          'Admin bearer token. Every number of the organization, active or not, oldest first; paged ' +
          '(`pageSize` 20 by default, at most 100). At most one is active: the one sends go out from.',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: MessagingNumberListResponseSchema },
      },
    },
    async (request) => setup.listMessagingNumbers(db, callerOf(request), request.query),
  );
  app.get(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.get',
        summary: 'Get a messaging number',
        description:
          'Admin bearer token. The number in E.164, its platform id and whether it is active; its id names ' +
          'its inbound hook, `/hooks/messaging/{id}`. 404 when the organization is unknown or the number ' +
          'is not one of its.',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        response: { 200: MessagingNumberResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.getMessagingNumber(db, callerOf(request), request.params.numberId),
    }),
  );
  app.patch(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.update',
        summary: 'Change or (de)activate a messaging number',
        description:
          "Admin bearer token. Any of `phone` (read in the organization's default country, stored in " +
          'E.164), `providerNumberId` and `active`. 409 DUPLICATE when activating it while another number ' +
          'is active (`error.existingId` names that one) or for a phone another number of the organization ' +
          'has. Without an active number, sends answer 404.',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        body: UpdateMessagingNumberBodySchema,
        response: { 200: MessagingNumberResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await setup.updateMessagingNumber(db, callerOf(request), request.params.numberId, request.body),
    }),
  );
  app.delete(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.delete',
        summary: 'Delete a messaging number',
        description:
          'Admin bearer token. Removes the number; messages already exchanged stay. Its inbound hook then ' +
          'answers 404, and when it was the active number, sends answer 404 until another is active. 404 ' +
          'when the organization is unknown or the number is not one of its.',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.deleteMessagingNumber(db, callerOf(request), request.params.numberId),
    }),
  );

  const templates = '/admin/v1/organizations/:orgId/message-templates';
  app.post(
    templates,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.create',
        summary: 'Add a message template',
        description:
          'Variables are written `{{name}}` (letters, digits, `_`) and listed in `variables`. PENDING unless ' +
          'given: only APPROVED templates can be sent. Name and language are unique per organization.',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        body: CreateMessageTemplateBodySchema,
        response: { 201: MessageTemplateResponseSchema, ...DUPLICATE },
      },
    },
    async (request, reply) =>
      reply.code(201).send({ data: await setup.createMessageTemplate(db, callerOf(request), request.body) }),
  );
  app.get(
    templates,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.list',
        summary: "List an organization's message templates",
        description:
          'Admin bearer token. Every template of the organization, whatever its review status, oldest ' +
          'first; paged (`pageSize` 20 by default, at most 100).',
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: MessageTemplateListResponseSchema },
      },
    },
    async (request) => setup.listMessageTemplates(db, callerOf(request), request.query),
  );
  app.get(
    `${templates}/:templateId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.get',
        summary: 'Get a message template',
        description:
          'Admin bearer token. The template with its body, the `{{variables}}` read from it, category, ' +
          'language and review status (only APPROVED templates can be sent). 404 when the organization is ' +
          'unknown or the template is not one of its.',
        tags: TAGS,
        params: OrgTemplateParamsSchema,
        response: { 200: MessageTemplateResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.getMessageTemplate(db, callerOf(request), request.params.templateId),
    }),
  );
  app.patch(
    `${templates}/:templateId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.update',
        summary: 'Change a message template (e.g. its review status)',
        description:
          'Admin bearer token. Any of `name`, `language`, `category`, `body`, `status` (APPROVED once the ' +
          'platform accepted it: only APPROVED templates can be sent). A new body re-reads `variables`; ' +
          'messages already sent keep their text. 409 DUPLICATE when another template has the same name ' +
          'and language.',
        tags: TAGS,
        params: OrgTemplateParamsSchema,
        body: UpdateMessageTemplateBodySchema,
        response: { 200: MessageTemplateResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await setup.updateMessageTemplate(db, callerOf(request), request.params.templateId, request.body),
    }),
  );
  app.delete(
    `${templates}/:templateId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.delete',
        summary: 'Delete a message template',
        description: 'Messages sent with it keep their text; their `templateId` becomes null.',
        tags: TAGS,
        params: OrgTemplateParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.deleteMessageTemplate(db, callerOf(request), request.params.templateId),
    }),
  );
};
