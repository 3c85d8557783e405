// Appointments as iCalendar (RFC 5545), written by ical-generator (decision 0236): one appointment
// (GET /v1/appointments/{id}.ics) or an agent's subscription feed. Times are UTC (`Z`): exact on both
// sides of a DST change without VTIMEZONE blocks; every calendar shows them in its user's zone.
import ical, {
  ICalAttendeeRole,
  ICalAttendeeStatus,
  ICalCalendarMethod,
  ICalEventStatus,
} from 'ical-generator';
import type { CalendarAppointment } from './calendar.store.ts';

const PRODUCT = { company: 'agency-crm', product: 'agency-crm', language: 'EN' };
/**
 * The right-hand side of every UID (`<appointment id>@agency-crm`): the same whatever host or
 * PUBLIC_URL served the file, so a domain change does not duplicate events in subscribed calendars
 * (appointment ids are unique on their own; decision 0253).
 */
const UID_DOMAIN = 'agency-crm';

const STATUSES: Record<string, ICalEventStatus> = {
  SCHEDULED: ICalEventStatus.TENTATIVE,
  CONFIRMED: ICalEventStatus.CONFIRMED,
  CANCELLED: ICalEventStatus.CANCELLED,
  COMPLETED: ICalEventStatus.CONFIRMED,
  NO_SHOW: ICalEventStatus.CONFIRMED,
};

const TYPE_NAMES: Record<string, string> = {
  SHOWING: 'Showing',
  VALUATION: 'Valuation',
  MEETING: 'Meeting',
  VIDEO_CALL: 'Video call',
  PHONE_CALL: 'Phone call',
};

function contactName(row: CalendarAppointment): string | null {
  const name = [row.contactFirstName, row.contactLastName].filter(Boolean).join(' ').trim();
  return name === '' ? null : name;
}

function eventOf(row: CalendarAppointment) {
  const what = TYPE_NAMES[row.type] ?? row.type;
  const who = contactName(row);
  const listing =
    row.propertyTitle === null ? null : `${row.propertyTitle} (${row.propertyCode ?? ''})`.trim();
  const place = [row.propertyAddress, row.propertyCity].filter(Boolean).join(', ');
  return {
    id: `${row.id}@${UID_DOMAIN}`,
    start: row.startsAt,
    end: row.endsAt,
    stamp: row.updatedAt,
    created: row.createdAt,
    lastModified: row.updatedAt,
    // 0 when made, one more at each change of start, end or status (the database keeps it: migration 0029).
    sequence: row.sequence,
    status: STATUSES[row.status] ?? ICalEventStatus.CONFIRMED,
    summary: [row.status === 'CANCELLED' ? 'Cancelled:' : null, what, who ? `with ${who}` : null]
      .filter(Boolean)
      .join(' '),
    location: place === '' ? null : place,
    description:
      [
        listing ? `Listing: ${listing}` : null,
        row.contactPhone ? `Phone: ${row.contactPhone}` : null,
        row.contactEmail ? `Email: ${row.contactEmail}` : null,
        `Status: ${row.status}`,
        `Appointment: ${row.id}`,
      ]
        .filter(Boolean)
        .join('\n') || null,
  };
}

/**
 * A VCALENDAR of the appointments, named `name`. An appointment keeps its UID in every download and
 * feed, so calendars update it in place. Every line ends with CRLF, the last one too (RFC 5545 3.1:
 * ical-generator leaves the last without).
 */
export function calendarOf(name: string, rows: readonly CalendarAppointment[]): string {
  const calendar = ical({ name, prodId: PRODUCT, ttl: 15 * 60 });
  for (const row of rows) calendar.createEvent(eventOf(row));
  const text = calendar.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

/** Who an emailed invitation is from and to (RFC 5546: a REQUEST or CANCEL names both). */
export interface InvitationParties {
  organizer: { name: string; email: string };
  attendee: { name: string | null; email: string };
}

/**
 * One appointment as the visitor's invitation (issue 41): `METHOD:REQUEST` for a new or moved visit,
 * `METHOD:CANCEL` for a cancelled one, with the appointment's UID and SEQUENCE, so a mail client adds,
 * moves or removes the same event. The summary and description are the visitor's (`summary`,
 * `description`), not the agent's.
 */
export function invitationOf(
  row: CalendarAppointment,
  method: 'REQUEST' | 'CANCEL',
  parties: InvitationParties,
  words: { summary: string; description: string | null },
): string {
  const calendar = ical({
    prodId: PRODUCT,
    method: method === 'REQUEST' ? ICalCalendarMethod.REQUEST : ICalCalendarMethod.CANCEL,
  });
  calendar.createEvent({
    ...eventOf(row),
    status:
      method === 'CANCEL' ? ICalEventStatus.CANCELLED : (STATUSES[row.status] ?? ICalEventStatus.CONFIRMED),
    summary: words.summary,
    description: words.description,
    organizer: parties.organizer,
    attendees: [
      {
        email: parties.attendee.email,
        ...(parties.attendee.name === null ? {} : { name: parties.attendee.name }),
        role: ICalAttendeeRole.REQ,
        status: method === 'CANCEL' ? ICalAttendeeStatus.DECLINED : ICalAttendeeStatus.ACCEPTED,
      },
    ],
  });
  const text = calendar.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}
