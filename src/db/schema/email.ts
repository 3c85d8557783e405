import { sql } from 'drizzle-orm';
import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns.ts';
import { organizations, tenantId } from './platform.ts';

// ---------------------------------------------------------------------------------------------
// Email (issue 41). Glossary
// - email: one message to one address, queued in the transaction of the change that calls for it
//   (triggers on appointments, leads and visit requests, migration 0037; reminders by the reminders
//   job), rendered once when the worker first takes it, then sent at least once with the same
//   Message-ID (`<id@…>`) however often a crash makes it start again.
// - kind: what the email says (VISIT_CONFIRMATION, VISIT_UPDATED, VISIT_CANCELLED, VISIT_REMINDER,
//   BOOKING_ALERT, LEAD_ALERT, VISIT_REQUEST_ALERT); `ref_id` and `revision` name the change, once.
// - template: an organization's own subject, HTML and text of a kind in a language; the built-in
//   ones are in the code.
// - suppression: an address that bounced; nothing more is sent to it (a contact's new address is
//   another address).
// ---------------------------------------------------------------------------------------------

/** The organization's sender and limits: one row per organization, created on first change. */
export const emailSettings = pgTable('email_settings', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  /** The From display name; null: the organization's name. */
  senderName: text('sender_name'),
  /** Where replies go; null: no Reply-To (the sender address of the service). */
  replyTo: text('reply_to'),
  /** Where alerts go when the lead or visit has no agent with an address; null: no alert. */
  alertAddress: text('alert_address'),
  /** Emails sent per rolling hour at most; more wait for the next hour. */
  hourlyLimit: integer('hourly_limit').notNull().default(200),
  updatedAt: updatedAt(),
});

export const emailTemplates = pgTable(
  'email_templates',
  {
    organizationId: tenantId(),
    kind: text('kind').notNull(),
    language: text('language').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text').notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.kind, t.language] })],
);

export const emails = pgTable(
  'emails',
  {
    id: text('id').notNull(),
    organizationId: tenantId(),
    kind: text('kind').notNull(),
    /** The appointment, lead or visit request it is about. */
    refId: text('ref_id').notNull(),
    /** Which change of `ref_id` (an appointment's SEQUENCE; 0 otherwise): one email per change. */
    revision: integer('revision').notNull().default(0),
    /** QUEUED, SENDING (leased until next_attempt_at), SENT, FAILED, SKIPPED or BOUNCED. */
    status: text('status').notNull().default('QUEUED'),
    /** Why SKIPPED or FAILED (the last error while retrying). */
    reason: text('reason'),
    contactId: text('contact_id'),
    toAddress: text('to_address'),
    language: text('language'),
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    /** The iCalendar attachment (METHOD:REQUEST or CANCEL) of a visit email. */
    ics: text('ics'),
    /** SMTP or SANDBOX (test mode and development): where it went. */
    transport: text('transport'),
    attempts: integer('attempts').notNull().default(0),
    /** When it is due (QUEUED), or when its sender's lease ends (SENDING). */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.id] }),
    uniqueIndex('emails_change_idx').on(t.organizationId, t.kind, t.refId, t.revision),
    index('emails_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} IN ('QUEUED', 'SENDING')`),
    index('emails_organization_id_created_at_idx').on(t.organizationId, t.createdAt, t.id),
    index('emails_contact_id_idx').on(t.organizationId, t.contactId),
    index('emails_sent_at_idx').on(t.organizationId, t.sentAt).where(sql`${t.sentAt} IS NOT NULL`),
    // The retention purge (EMAIL_LOG_RETENTION_DAYS), across organizations, oldest first (migration 0038).
    index('emails_created_at_idx').on(t.createdAt),
    // A bounce names an email by its Message-ID only: found by id across organizations (decision 0269).
    index('emails_id_idx').on(t.id),
  ],
);
export type EmailRow = typeof emails.$inferSelect;

export const emailSuppressions = pgTable(
  'email_suppressions',
  {
    organizationId: tenantId(),
    /** Lower case. */
    address: text('address').notNull(),
    reason: text('reason').notNull(),
    /** The email that bounced, when known. */
    emailId: text('email_id'),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.address] })],
);
