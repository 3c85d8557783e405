// Appointments as iCalendar (RFC 5545), written by ical-generator (decision 0236): one appointment
// (GET /v1/appointments/{id}.ics) or an agent's subscription feed. Times are UTC (`Z`): exact on both
// sides of a DST change without VTIMEZONE blocks; every calendar shows them in its user's zone.
import ical, { ICalEventStatus } from 'ical-generator';
import type { CalendarAppointment } from './calendar.store.ts';

const PRODUCT = { company: 'agency-crm', product: 'agency-crm', language: 'EN' };
/** SEQUENCE counts seconds since this instant: it grows with every change, as RFC 5545 asks. */
const SEQUENCE_EPOCH = Date.UTC(2024, 0, 1);

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

function eventOf(row: CalendarAppointment, host: string) {
  const what = TYPE_NAMES[row.type] ?? row.type;
  const who = contactName(row);
  const listing =
    row.propertyTitle === null ? null : `${row.propertyTitle} (${row.propertyCode ?? ''})`.trim();
  const place = [row.propertyAddress, row.propertyCity].filter(Boolean).join(', ');
  return {
    id: `${row.id}@${host}`,
    start: row.startsAt,
    end: row.endsAt,
    stamp: row.updatedAt,
    created: row.createdAt,
    lastModified: row.updatedAt,
    sequence: Math.max(0, Math.floor((row.updatedAt.getTime() - SEQUENCE_EPOCH) / 1000)),
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
 * A VCALENDAR of the appointments, named `name`. `host` makes the UIDs (`<appointment>@<host>`): the
 * same appointment keeps its UID in every download and feed, so calendars update it in place.
 */
export function calendarOf(name: string, rows: readonly CalendarAppointment[], host: string): string {
  const calendar = ical({ name, prodId: PRODUCT, ttl: 15 * 60 });
  for (const row of rows) calendar.createEvent(eventOf(row, host));
  return calendar.toString();
}
