import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/database.ts';
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
      reply
        .code(201)
        .send({ data: await setup.createMessagingNumber(db, request.params.orgId, request.body) }),
  );
  app.get(
    numbers,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.list',
        summary: "List an organization's messaging numbers",
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: MessagingNumberListResponseSchema },
      },
    },
    async (request) => setup.listMessagingNumbers(db, request.params.orgId, request.query),
  );
  app.get(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.get',
        summary: 'Get a messaging number',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        response: { 200: MessagingNumberResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.getMessagingNumber(db, request.params.orgId, request.params.numberId),
    }),
  );
  app.patch(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.update',
        summary: 'Change or (de)activate a messaging number',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        body: UpdateMessagingNumberBodySchema,
        response: { 200: MessagingNumberResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await setup.updateMessagingNumber(
        db,
        request.params.orgId,
        request.params.numberId,
        request.body,
      ),
    }),
  );
  app.delete(
    `${numbers}/:numberId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messagingNumbers.delete',
        summary: 'Delete a messaging number',
        tags: TAGS,
        params: OrgNumberParamsSchema,
        response: { 200: DeletedResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.deleteMessagingNumber(db, request.params.orgId, request.params.numberId),
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
      reply
        .code(201)
        .send({ data: await setup.createMessageTemplate(db, request.params.orgId, request.body) }),
  );
  app.get(
    templates,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.list',
        summary: "List an organization's message templates",
        tags: TAGS,
        params: OrganizationIdParamsSchema,
        querystring: PageQuerySchema,
        response: { 200: MessageTemplateListResponseSchema },
      },
    },
    async (request) => setup.listMessageTemplates(db, request.params.orgId, request.query),
  );
  app.get(
    `${templates}/:templateId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.get',
        summary: 'Get a message template',
        tags: TAGS,
        params: OrgTemplateParamsSchema,
        response: { 200: MessageTemplateResponseSchema },
      },
    },
    async (request) => ({
      data: await setup.getMessageTemplate(db, request.params.orgId, request.params.templateId),
    }),
  );
  app.patch(
    `${templates}/:templateId`,
    {
      config: ADMIN,
      schema: {
        operationId: 'admin.messageTemplates.update',
        summary: 'Change a message template (e.g. its review status)',
        tags: TAGS,
        params: OrgTemplateParamsSchema,
        body: UpdateMessageTemplateBodySchema,
        response: { 200: MessageTemplateResponseSchema, ...DUPLICATE },
      },
    },
    async (request) => ({
      data: await setup.updateMessageTemplate(
        db,
        request.params.orgId,
        request.params.templateId,
        request.body,
      ),
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
      data: await setup.deleteMessageTemplate(db, request.params.orgId, request.params.templateId),
    }),
  );
};
