// The email log (issue 41): the queue itself, read as the organization's list of emails, newest
// first, and one email with what it said. A test key reads its test twin's emails.
import type { Database } from '../../db/database.ts';
import type { EmailRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { parseDateOrDateTime } from '../../platform/http/dates.ts';
import { countedPageMeta, pageRequest, type PageMeta } from '../../platform/http/pagination.ts';
import { isId } from '../../platform/ids/ids.ts';
import { readAs } from '../../platform/tenancy/caller-tx.ts';
import type { EmailKind, EmailStatus } from './email.kinds.ts';
import type { Email, EmailDetail, ListEmailsQuery } from './email.log.schema.ts';
import * as store from './email.log.store.ts';
import { messageIdOf } from './email.message-id.ts';

function toEmail(row: store.EmailSummaryRow, from: string): Email {
  return {
    id: row.id,
    kind: row.kind as EmailKind,
    refId: row.refId,
    revision: row.revision,
    status: row.status as EmailStatus,
    reason: row.reason,
    contactId: row.contactId,
    to: row.toAddress,
    language: row.language,
    subject: row.subject,
    transport: row.transport as Email['transport'],
    attempts: row.attempts,
    messageId: messageIdOf(row.id, from),
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt?.toISOString() ?? null,
  };
}

/** The METHOD of an attached invitation (REQUEST or CANCEL), or null without one. */
export function icsMethodOf(ics: string | null): EmailDetail['icsMethod'] {
  const method = ics === null ? undefined : /^METHOD:(REQUEST|CANCEL)\r?$/m.exec(ics)?.[1];
  return (method as EmailDetail['icsMethod'] | undefined) ?? null;
}

const dateOf = (value: string | undefined, field: string) =>
  value === undefined ? undefined : parseDateOrDateTime(value, field);

/**
 * GET /v1/emails: the caller's organization's emails, newest first, one page (`page`, `pageSize`),
 * filtered by status, kind, contact and creation time. `from` is EMAIL_FROM (the Message-IDs' domain).
 */
export async function listEmails(
  db: Database,
  caller: Caller,
  query: ListEmailsQuery,
  from: string,
): Promise<{ data: Email[]; meta: PageMeta }> {
  const organizationId = caller.organization.id;
  const page = pageRequest(query);
  const filter: store.EmailFilter = {
    status: query.status,
    kind: query.kind,
    contactId: query.contactId,
    createdFrom: dateOf(query.createdAfter, 'query.createdAfter'),
    createdTo: dateOf(query.createdBefore, 'query.createdBefore'),
  };
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listEmails(tx, organizationId, filter, page),
  );
  return { data: items.map((row) => toEmail(row, from)), meta: countedPageMeta(total, page, items.length) };
}

/** GET /v1/emails/{id}: one email with its bodies; 404 when malformed, unknown or another organization's. */
export async function getEmail(db: Database, caller: Caller, id: string, from: string): Promise<EmailDetail> {
  const organizationId = caller.organization.id;
  const row: EmailRow | null = isId(id, 'eml')
    ? await readAs(db, caller, (tx) => store.findEmail(tx, organizationId, id))
    : null;
  if (!row) throw Errors.notFound('Email', id);
  return { ...toEmail(row, from), text: row.text, html: row.html, icsMethod: icsMethodOf(row.ics) };
}
