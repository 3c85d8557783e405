import { Type, type Static } from '@fastify/type-provider-typebox';
import { ListOf } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool, type McpCountDefinition, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import { EmailSchema, ListEmailsQuerySchema } from './email.log.schema.ts';
import { listEmails } from './email.log.service.ts';

const { page, pageSize, status, kind, contactId, createdAfter, createdBefore } =
  ListEmailsQuerySchema.properties;
const ListEmailsInputSchema = Type.Object(
  { status, kind, contactId, createdAfter, createdBefore, page, pageSize },
  { additionalProperties: false },
);

/** The email log as GET /v1/emails reads it (its service, its filters, its page). */
export const listEmailsTool = defineTool({
  name: 'list_emails',
  title: 'List emails',
  description:
    "The agency's emails to visitors and agents, newest first: visit confirmations, updates, cancellations and " +
    'reminders, and new-lead, visit-request and booking alerts. Use it to tell whether a visitor was sent their ' +
    'confirmation (`contactId`: ct_…) or why not: `status` SENT, QUEUED, SENDING, FAILED, SKIPPED (`reason` says ' +
    'why: consent revoked, opted out, address bounced, no address...) or BOUNCED. `kind` keeps one kind; ' +
    '`createdAfter` (inclusive) and `createdBefore` (strict) take a date or a date-time with offset. No bodies: ' +
    'subject, recipient and status only. Paged: `page` from 1, `pageSize` up to 100 (default 20).',
  scopes: ['email:read'],
  input: ListEmailsInputSchema,
  output: ListOf(ref(EmailSchema)),
  run: ({ db, caller, config }, args: Static<typeof ListEmailsInputSchema>) =>
    listEmails(db, caller, args, config.emailFrom),
  summarize: (result) => pageSummary(result, 'email'),
});

export const emailMcpTools = [listEmailsTool];

/** The MCP summary's count of the email feature: what did not reach its recipient. */
export const emailMcpCounts: McpCountDefinition[] = [
  {
    name: 'failedEmails',
    description: 'Emails FAILED after every retry or BOUNCED, kept for the log retention (email:read)',
    scope: 'email:read',
    count: async ({ db, caller, config }) => {
      let total = 0;
      for (const status of ['FAILED', 'BOUNCED'] as const)
        total += (await listEmails(db, caller, { status, page: 1, pageSize: 1 }, config.emailFrom)).meta
          .total;
      return total;
    },
  },
];
