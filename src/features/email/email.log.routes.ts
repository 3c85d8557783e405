import { callerOf } from '../../platform/auth/auth.plugin.ts';
import type { FeaturePlugin } from '../../platform/features/manifest.ts';
import { SECRET_KEYS } from '../../platform/http/route-config.ts';
import { ErrorResponseSchema, ref } from '../../platform/http/schemas.ts';
import {
  EmailDetailResponseSchema,
  EmailIdParamsSchema,
  EmailListResponseSchema,
  ListEmailsQuerySchema,
} from './email.log.schema.ts';
import { getEmail, listEmails } from './email.log.service.ts';

const READ = { auth: { scope: 'email:read', keyTypes: SECRET_KEYS, write: false } } as const;
const TAGS = ['Email'];

/** The email log: GET /v1/emails and GET /v1/emails/{id}. */
export const emailLogRoutes: FeaturePlugin = async (app, { db, config }) => {
  app.get(
    '/v1/emails',
    {
      config: READ,
      schema: {
        operationId: 'emails.list',
        summary: 'The email log',
        description:
          'Secret or read-only secret key with `email:read`. The emails of the organization (a test key: of its ' +
          'test twin), newest first: visit confirmations, updates, cancellations and reminders to visitors, and ' +
          'alerts to agents, each with its status (QUEUED, SENDING, SENT, FAILED, SKIPPED, BOUNCED), why it was ' +
          'skipped, failed or bounced, the address, subject and Message-ID. Filters: `status`, `kind`, ' +
          '`contactId`, `createdAfter` (at or after), `createdBefore` (strictly before). Paged with `page` and ' +
          '`pageSize`; the bodies are in GET /v1/emails/{id}.',
        tags: TAGS,
        querystring: ListEmailsQuerySchema,
        response: { 200: EmailListResponseSchema },
      },
    },
    async (request) => listEmails(db, callerOf(request), request.query, config.emailFrom),
  );

  app.get(
    '/v1/emails/:id',
    {
      config: READ,
      schema: {
        operationId: 'emails.get',
        summary: 'One email, with what it said',
        description:
          'Secret or read-only secret key with `email:read`. The email of the log with its plain-text and HTML ' +
          'bodies as sent (null until it is composed, or when it was skipped first) and the method of its ' +
          'attached invitation (`icsMethod`: REQUEST or CANCEL; null without one). 404 for an id not the ' +
          "organization's.",
        tags: TAGS,
        params: EmailIdParamsSchema,
        response: { 200: EmailDetailResponseSchema, 404: ref(ErrorResponseSchema) },
      },
    },
    async (request) => ({ data: await getEmail(db, callerOf(request), request.params.id, config.emailFrom) }),
  );
};
