// The value sets of the contacts area's text columns (db/schema/contacts.ts): each column is typed
// with its set (`$type`, no SQL of its own), and the features' schemas and mappers use the same lists.

/** Where a contact came from (docs/decisions/0042-contact-value-sets.md). */
export const CONTACT_SOURCES = [
  'WEBSITE',
  'PORTAL',
  'FINDER',
  'BOOKING',
  'MESSAGING',
  'PHONE',
  'EMAIL',
  'WALK_IN',
  'REFERRAL',
  'SOCIAL',
  'IMPORT',
  'API',
  'OTHER',
] as const;
/** Where the contact stands in the sales funnel. */
export const CONTACT_STATUSES = [
  'NEW',
  'CONTACTED',
  'QUALIFIED',
  'UNQUALIFIED',
  'CONVERTED',
  'ARCHIVED',
] as const;
/** What the contact is to the agency. */
export const CONTACT_TYPES = ['LEAD', 'CLIENT', 'OWNER', 'TENANT', 'INVESTOR', 'PARTNER', 'OTHER'] as const;
export type ContactSource = (typeof CONTACT_SOURCES)[number];
export type ContactStatus = (typeof CONTACT_STATUSES)[number];
export type ContactType = (typeof CONTACT_TYPES)[number];

/** The channels a contact gives or withdraws consent on (docs/consent.md). */
export const CONSENT_CHANNELS = ['MESSAGING', 'EMAIL', 'PHONE'] as const;
export type ConsentChannel = (typeof CONSENT_CHANNELS)[number];
export const CONSENT_STATUSES = ['GRANTED', 'REVOKED'] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];

/** Part of the day a visitor would like to visit (docs/decisions/0046-visit-request-schedule.md). */
export const PREFERRED_TIMES = ['morning', 'afternoon', 'evening'] as const;
/**
 * A visit request waits for the agency: PENDING until it is CONFIRMED (an appointment is made) or
 * DECLINED (docs/decisions/0203-deciding-visit-requests.md). CANCELLED is kept for requests the
 * visitor withdraws; nothing sets it yet.
 */
export const VISIT_REQUEST_STATUSES = ['PENDING', 'CONFIRMED', 'DECLINED', 'CANCELLED'] as const;
/** Whether a lead made a new contact or found one (docs/decisions/0202-lead-outcome-and-referrer.md). */
export const LEAD_OUTCOMES = ['CREATED', 'MATCHED'] as const;
/** The key a MATCHED lead found its contact by: the phone is tried first, then the email. */
export const LEAD_MATCH_KEYS = ['PHONE', 'EMAIL'] as const;
export type LeadOutcome = (typeof LEAD_OUTCOMES)[number];
export type LeadMatchKey = (typeof LEAD_MATCH_KEYS)[number];
export type PreferredTime = (typeof PREFERRED_TIMES)[number];
export type VisitRequestStatus = (typeof VISIT_REQUEST_STATUSES)[number];

/** What an appointment is for (docs/decisions/0055-booking-appointment-types.md). */
export const APPOINTMENT_TYPES = ['SHOWING', 'VALUATION', 'MEETING', 'VIDEO_CALL', 'PHONE_CALL'] as const;
export type AppointmentType = (typeof APPOINTMENT_TYPES)[number];
/**
 * Every appointment status (docs/decisions/0137-appointments-back-office.md): a booking starts
 * SCHEDULED or CONFIRMED; CANCELLED, COMPLETED and NO_SHOW end it. Only SCHEDULED and CONFIRMED
 * hold the agent's time (ACTIVE_APPOINTMENT_STATUSES, the no-overlap constraint's predicate).
 */
export const APPOINTMENT_STATUSES = ['SCHEDULED', 'CONFIRMED', 'CANCELLED', 'COMPLETED', 'NO_SHOW'] as const;
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];
/** Who made the appointment: the public booking page, the back office or a secret key through v1. */
export const APPOINTMENT_SOURCES = ['BOOKING', 'ADMIN', 'API'] as const;
export type AppointmentSource = (typeof APPOINTMENT_SOURCES)[number];

/**
 * What a task asks of its assignee (docs/decisions/0136-tasks-back-office.md). NOTIFICATION is what a booking
 * leaves in the agent's inbox; the others are the back office's to-dos.
 */
export const TASK_TYPES = ['TODO', 'CALL', 'EMAIL', 'MEETING', 'FOLLOW_UP', 'NOTIFICATION', 'OTHER'] as const;
export type TaskType = (typeof TASK_TYPES)[number];
/** PENDING until done or called off; `completedAt` is set while DONE. */
export const TASK_STATUSES = ['PENDING', 'DONE', 'CANCELLED'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
