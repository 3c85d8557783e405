// Composing a queued email (decision 0267), once, in its organization's transaction: who it goes to,
// in which language, what it says (the organization's template or the built-in one, filled in), the
// .ics of a visit, or why it is not sent (no address, consent revoked, bounced address, superseded).
import type { Tx } from '../../db/database.ts';
import type { EmailRow } from '../../db/schema.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { manageUrl } from '../appointments/index.ts';
import {
  findCalendarAppointment,
  invitationOf,
  visitWords,
  type CalendarAppointment,
} from '../calendar/index.ts';
import { findAgentProfile } from '../agents/index.ts';
import * as context from './email.compose.store.ts';
import {
  EMAIL_LANGUAGES,
  RECIPIENT_OF,
  REMINDER_REVISION_BASE,
  VARIABLES,
  type EmailKind,
} from './email.kinds.ts';
import type { RenderedEmail } from './email.queue.store.ts';
import { isSuppressed } from './email.suppressions.store.ts';
import { renderTemplate } from './email.render.ts';
import { effectiveTemplate } from './email.service.ts';
import { emailSettingsOf } from './email.settings.ts';
import { findOrganization } from './email.store.ts';
import { unsubscribeUrl } from './email.unsubscribe.ts';
import { FOOTERS } from './email.footers.ts';

export interface ComposeSettings {
  secrets: SecretBox;
  /** Where the manage and unsubscribe links point (PUBLIC_URL, else the service's own address). */
  origin: string;
  /** EMAIL_FROM: the organizer of an invitation when the agent has no address. */
  from: string;
}

/** Why an email is not sent (the log shows it). */
export type SkipReason =
  'NOT_FOUND' | 'NO_ADDRESS' | 'CONSENT_REVOKED' | 'OPTED_OUT' | 'UNDELIVERABLE' | 'SUPERSEDED' | 'PAST';

export type Composed = { skip: SkipReason } | { rendered: RenderedEmail; visitor: boolean };

/** Who sends for an organization: its name, languages and zone, test mode, and its email settings. */
export interface SenderContext {
  organizationName: string;
  defaultLanguage: string;
  timezone: string;
  /** A test twin's emails go to the sandbox only. */
  testMode: boolean;
  senderName: string | null;
  replyTo: string | null;
  alertAddress: string | null;
  hourlyLimit: number;
}

/** The organization's row and its email settings, each read once. */
export async function senderContext(tx: Tx, organizationId: string): Promise<SenderContext | null> {
  const organization = await findOrganization(tx, organizationId);
  if (!organization) return null;
  const settings = await emailSettingsOf(tx, organizationId, organization);
  return {
    organizationName: organization.name,
    defaultLanguage: organization.defaultLanguage,
    timezone: organization.timezone,
    testMode: organization.liveOrganizationId !== null,
    senderName: settings.senderName,
    replyTo: settings.replyTo,
    alertAddress: settings.alertAddress,
    hourlyLimit: settings.hourlyLimit,
  };
}

/** The languages built-in templates have; a contact's other language gets the organization's default. */
function languageFor(preferred: string | null, sender: SenderContext): string {
  const supported = (value: string | null): value is string =>
    value !== null && (EMAIL_LANGUAGES as readonly string[]).includes(value);
  if (supported(preferred)) return preferred;
  return supported(sender.defaultLanguage) ? sender.defaultLanguage : 'en';
}

const fullName = (person: { firstName: string; lastName: string }) =>
  `${person.firstName} ${person.lastName}`.trim();

/** A reply link to the person who wrote or booked: their email, else their phone. */
function replyLink(person: { email: string | null; phone: string | null }): string | null {
  if (person.email) return `mailto:${person.email}`;
  return person.phone ? `tel:${person.phone}` : null;
}

/** Whether a visitor may be emailed at all: their address, consent and bounces. */
async function visitorBlock(
  tx: Tx,
  organizationId: string,
  contact: context.EmailContact,
): Promise<SkipReason | null> {
  if (!contact.email) return 'NO_ADDRESS';
  if (contact.emailConsent === 'REVOKED') return 'CONSENT_REVOKED';
  if (contact.optedOut) return 'OPTED_OUT';
  if (await isSuppressed(tx, organizationId, contact.email)) return 'UNDELIVERABLE';
  return null;
}

/** Whether the visit this email is about has changed since: then a later email says it instead. */
function superseded(
  kind: EmailKind,
  row: EmailRow,
  visit: CalendarAppointment,
  now: Date,
): SkipReason | null {
  if (visit.startsAt.getTime() <= now.getTime()) return 'PAST';
  if (kind === 'VISIT_CANCELLED') return null;
  if (visit.status === 'CANCELLED') return 'SUPERSEDED';
  if (kind === 'BOOKING_ALERT') return null;
  const version =
    kind === 'VISIT_REMINDER' ? Math.floor(row.revision / REMINDER_REVISION_BASE) : row.revision;
  return visit.sequence > version ? 'SUPERSEDED' : null;
}

/**
 * Composes the email `row` calls for, or says why it is not sent. Runs when the worker first takes it;
 * the result is kept with the email, so a send started again after a crash sends the same message.
 * `sender`: the organization's (senderContext), read once by the worker for the limit and the send.
 */
export async function composeEmail(
  tx: Tx,
  row: EmailRow,
  sender: SenderContext,
  settings: ComposeSettings,
  now: Date,
): Promise<Composed> {
  const kind = row.kind as EmailKind;
  const organizationId = row.organizationId;
  const agencyName = sender.senderName ?? sender.organizationName;

  let contact: context.EmailContact | null;
  let values: Record<string, string | null>;
  let agent: { name: string | null; email: string | null };
  let visit: CalendarAppointment | null = null;
  if (kind === 'LEAD_ALERT' || kind === 'VISIT_REQUEST_ALERT') {
    const inquiry =
      kind === 'LEAD_ALERT'
        ? await context.leadForEmail(tx, organizationId, row.refId)
        : await context.visitRequestForEmail(tx, organizationId, row.refId);
    contact = inquiry && (await context.contactForEmail(tx, organizationId, inquiry.contactId));
    if (!inquiry || !contact) return { skip: 'NOT_FOUND' };
    agent = { name: inquiry.agentName, email: inquiry.agentEmail };
    values = {
      propertyTitle: inquiry.propertyTitle,
      propertyCode: inquiry.propertyCode,
      message: inquiry.message,
      preferredDate: inquiry.preferredDate,
      preferredTime: inquiry.preferredTime,
    };
  } else {
    visit = await findCalendarAppointment(tx, organizationId, row.refId);
    if (!visit) return { skip: 'NOT_FOUND' };
    const stale = superseded(kind, row, visit, now);
    if (stale) return { skip: stale };
    contact =
      visit.contactId === null ? null : await context.contactForEmail(tx, organizationId, visit.contactId);
    const profile = await findAgentProfile(tx, organizationId, visit.agentId);
    agent = { name: profile?.fullName ?? null, email: profile?.email ?? null };
    const zone = profile?.booking?.timezone ?? sender.timezone;
    const language = languageFor(contact?.preferredLanguage ?? null, sender);
    const words = visitWords(
      visit.startsAt,
      zone,
      RECIPIENT_OF[kind] === 'VISITOR' ? language : sender.defaultLanguage,
    );
    values = {
      agentName: agent.name,
      propertyTitle: visit.propertyTitle,
      address: [visit.propertyAddress, visit.propertyCity].filter(Boolean).join(', ') || null,
      date: words.date,
      time: words.time,
      timezone: zone,
      manageUrl: manageUrl(settings.secrets, settings.origin, organizationId, visit.id),
    };
  }

  const toVisitor = RECIPIENT_OF[kind] === 'VISITOR';
  let to: string | null;
  let language: string;
  if (toVisitor) {
    if (!contact) return { skip: 'NO_ADDRESS' };
    const block = await visitorBlock(tx, organizationId, contact);
    if (block) return { skip: block };
    to = contact.email;
    language = languageFor(contact.preferredLanguage, sender);
    values.firstName = contact.firstName;
  } else {
    to = agent.email ?? sender.alertAddress;
    language = languageFor(null, sender);
    values.firstName = agent.name?.split(' ')[0] ?? agencyName;
    if (contact) {
      values.contactName = fullName(contact);
      values.contactPhone = contact.phone;
      values.contactEmail = contact.email;
      values.link = replyLink(contact);
    }
  }
  if (!to) return { skip: 'NO_ADDRESS' };
  if (!toVisitor && (await isSuppressed(tx, organizationId, to))) return { skip: 'UNDELIVERABLE' };
  values.agencyName = agencyName;

  const variables = Object.fromEntries(VARIABLES[kind].map((name) => [name, values[name] ?? null]));
  const template = await effectiveTemplate(tx, organizationId, kind, language, sender.defaultLanguage);
  language = template.language;
  const message = renderTemplate(template, variables);
  const unsubscribe =
    toVisitor && contact
      ? unsubscribeUrl(settings.secrets, settings.origin, organizationId, contact.id)
      : null;
  const footer = unsubscribe === null ? null : (FOOTERS[language as keyof typeof FOOTERS] ?? FOOTERS.en);
  const ics =
    visit && contact?.email && toVisitor && kind !== 'VISIT_REMINDER'
      ? invitationOf(
          visit,
          kind === 'VISIT_CANCELLED' ? 'CANCEL' : 'REQUEST',
          {
            organizer: { name: agent.name ?? agencyName, email: agent.email ?? settings.from },
            attendee: { name: fullName(contact) || null, email: contact.email },
          },
          { summary: message.subject, description: values.manageUrl ?? null },
        )
      : null;
  return {
    visitor: toVisitor,
    rendered: {
      contactId: contact?.id ?? null,
      toAddress: to,
      language,
      subject: message.subject,
      html: footer && unsubscribe ? `${message.html}${footer.html(unsubscribe)}` : message.html,
      text: footer && unsubscribe ? `${message.text}\n\n${footer.text(unsubscribe)}\n` : message.text,
      ics,
    },
  };
}

/**
 * Before an email composed earlier is sent again (a retry, or after a crash): whether its address may
 * still be written to (consent withdrawn or a bounce since then stop it), and whether it is a visitor's.
 */
export async function recheckEmail(
  tx: Tx,
  row: EmailRow,
): Promise<{ skip: SkipReason } | { visitor: boolean }> {
  const visitor = RECIPIENT_OF[row.kind as EmailKind] === 'VISITOR';
  if (visitor && row.contactId !== null) {
    const contact = await context.contactForEmail(tx, row.organizationId, row.contactId);
    if (!contact) return { skip: 'NOT_FOUND' };
    const block = await visitorBlock(tx, row.organizationId, { ...contact, email: row.toAddress });
    if (block) return { skip: block };
  } else if (row.toAddress === null || (await isSuppressed(tx, row.organizationId, row.toAddress))) {
    return { skip: 'UNDELIVERABLE' };
  }
  return { visitor };
}
