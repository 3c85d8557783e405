// What the service emails (issue 41, decision 0267): each kind, who receives it, and the variables its
// templates may name. The triggers of migration 0037 queue the kinds; the reminders job queues
// VISIT_REMINDER; templates (built-in or an organization's own) are checked against VARIABLES.

export const EMAIL_KINDS = [
  'VISIT_CONFIRMATION',
  'VISIT_UPDATED',
  'VISIT_CANCELLED',
  'VISIT_REMINDER',
  'BOOKING_ALERT',
  'LEAD_ALERT',
  'VISIT_REQUEST_ALERT',
] as const;
export type EmailKind = (typeof EMAIL_KINDS)[number];

/** The languages every kind has built-in templates in. */
export const EMAIL_LANGUAGES = ['es', 'en', 'pt'] as const;
export type EmailLanguage = (typeof EMAIL_LANGUAGES)[number];

export const EMAIL_STATUSES = ['QUEUED', 'SENDING', 'SENT', 'FAILED', 'SKIPPED', 'BOUNCED'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * VISITOR: the contact of the visit (marketing law applies: one-click unsubscribe, consent); AGENT: the
 * agent of the visit or lead, else the agency's alert address (internal: no unsubscribe).
 */
export type EmailRecipient = 'VISITOR' | 'AGENT';

export const RECIPIENT_OF: Record<EmailKind, EmailRecipient> = {
  VISIT_CONFIRMATION: 'VISITOR',
  VISIT_UPDATED: 'VISITOR',
  VISIT_CANCELLED: 'VISITOR',
  VISIT_REMINDER: 'VISITOR',
  BOOKING_ALERT: 'AGENT',
  LEAD_ALERT: 'AGENT',
  VISIT_REQUEST_ALERT: 'AGENT',
};

/** Variables of every kind. */
const COMMON = ['agencyName', 'firstName'] as const;
/** Variables of the emails about a visit (an appointment). */
const VISIT = ['agentName', 'propertyTitle', 'address', 'date', 'time', 'timezone', 'manageUrl'] as const;
/** Variables of the alerts: the person who wrote or booked. */
const PERSON = ['contactName', 'contactPhone', 'contactEmail', 'link'] as const;

/**
 * The variables a template of each kind may name (`{{name}}`): a template naming any other is refused.
 * A visitor email's unsubscribe link is added by the service below every template, never by a variable.
 * Values may be empty (a listing with no address): `{{#address}}…{{/address}}` shows a part only when set.
 */
export const VARIABLES: Record<EmailKind, readonly string[]> = {
  VISIT_CONFIRMATION: [...COMMON, ...VISIT],
  VISIT_UPDATED: [...COMMON, ...VISIT],
  VISIT_CANCELLED: [...COMMON, ...VISIT],
  VISIT_REMINDER: [...COMMON, ...VISIT],
  BOOKING_ALERT: [...COMMON, ...VISIT, ...PERSON],
  LEAD_ALERT: [...COMMON, ...PERSON, 'propertyTitle', 'propertyCode', 'message'],
  VISIT_REQUEST_ALERT: [
    ...COMMON,
    ...PERSON,
    'propertyTitle',
    'propertyCode',
    'message',
    'preferredDate',
    'preferredTime',
  ],
};

/** The emails a visitor may unsubscribe from (all of theirs); alerts to the agency are internal. */
export const isVisitorEmail = (kind: EmailKind): boolean => RECIPIENT_OF[kind] === 'VISITOR';

/**
 * A VISIT_REMINDER's revision: the appointment's SEQUENCE times this, plus the reminder's offset in
 * minutes (at most 10,080): one email per reminder of each version of the visit.
 */
export const REMINDER_REVISION_BASE = 16_384;
