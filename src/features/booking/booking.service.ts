import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import { databaseError, EXCLUSION_VIOLATION } from '../../db/errors.ts';
import type { AgentBookingSettings } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId } from '../../platform/ids/ids.ts';
import { type BookingAgent, findBookingAgent, listBookingAgents } from '../agents/index.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import { recomputeContactScore, upsertPortalContact } from '../contacts/index.ts';
import { requirePortalProperty } from '../properties/index.ts';
import {
  AppointmentCreated,
  type AppointmentType,
  insertAppointmentInTx,
  listBusyIntervals,
  lockAgentBookings,
} from '../appointments/index.ts';
import type {
  AvailabilityQuery,
  BookingAgentCard,
  BookingAvailability,
  BookingReceipt,
  BookingStatus,
  CreateBookingBody,
} from './booking.schema.ts';
import {
  blockedBy,
  bookableDates,
  busySpan,
  freeSlots,
  gridSlots,
  groupByDate,
  hasHours,
  underDailyMaximum,
  wallClock,
  type Slot,
  type SlotBlocks,
} from './booking.slots.ts';
import { blockedTimes } from '../calendar/index.ts';

const DAY_MS = 86_400_000;
import { insertTaskInTx } from '../tasks/index.ts';

/** One message for "no such page" whether the slug is unknown or another agency's. */
function pageNotFound(slug: string) {
  return Errors.notFound('Booking page', slug);
}

/** 409 DUPLICATE for an offered slot someone else holds; `pick` says where to find a free one. */
export function slotUnavailable(
  date: string,
  startTime: string,
  pick = 'pick another from GET /v1/booking/{slug}/availability',
) {
  return Errors.duplicate(`The slot ${date} ${startTime} is no longer available: ${pick}`);
}

/**
 * 400 when the asked slot is none the agent offers at `now`, taken or not: no booking hours, a date
 * with no slot (past, within the notice, beyond the horizon, a day off) or a time off the slot grid.
 * 409 (`slotUnavailable`) stays for a slot that exists and someone else holds. `pick` tells the
 * caller where the offered slots are listed (the booking page's availability).
 */
export function requireOfferedSlot(
  booking: AgentBookingSettings | null,
  pick: string,
  date: string,
  startTime: string,
  now: number,
): asserts booking is AgentBookingSettings {
  if (!configured(booking))
    throw Errors.invalidField('body.date', `has no slot: this agent takes no online bookings`);
  const offered = freeSlots(booking, gridSlots(booking, [date]), [], now);
  if (offered.length === 0) {
    throw Errors.invalidField(
      'body.date',
      `has no slot of this agent (a past date, within the minimum notice, beyond the booking horizon or a day off): ${pick}`,
    );
  }
  if (!offered.some((slot) => slot.time === startTime)) {
    throw Errors.invalidField(
      'body.startTime',
      `is not a slot of this agent on ${date} (slots from ${offered[0]?.time} to ${offered.at(-1)?.time}, every ${booking.slotMinutes} minutes within the agent's hours): ${pick}`,
    );
  }
}

async function requireBookingAgent(tx: Tx, organizationId: string, slug: string): Promise<BookingAgent> {
  const agent = await findBookingAgent(tx, organizationId, slug);
  if (!agent) throw pageNotFound(slug);
  return agent;
}

/** Settings that can produce slots: booking set up and at least one window in the week. */
function configured(booking: AgentBookingSettings | null): booking is AgentBookingSettings {
  return booking !== null && hasHours(booking);
}

/**
 * The free slots of an agent on some dates, at `now`: the grid of the agent's hours minus the past,
 * the minimum notice, the horizon, the organization's closed days, the agent's time off, the
 * appointments (with their buffer) other than `exceptId`, and the days already at the agent's daily
 * maximum. The one computation behind the availability page, the check of a booking and of a v1
 * write; `blocks` says what closed days and time off there were (null when no slot was on the grid).
 */
async function slotsOn(
  tx: Tx,
  organizationId: string,
  agent: { id: string; booking: AgentBookingSettings },
  dates: string[],
  now: number,
  exceptId: string | null,
): Promise<{ free: Slot[]; blocks: SlotBlocks | null }> {
  const rules = agent.booking;
  const grid = freeSlots(rules, gridSlots(rules, dates), [], now);
  const span = busySpan(rules, grid);
  if (!span) return { free: [], blocks: null };
  const blocks = await blockedTimes(tx, organizationId, agent.id, span.from, span.to);
  const open = grid.filter((slot) => blockedBy(slot, blocks) === null);
  // Every appointment of a slot's day counts toward its maximum: read a day either side.
  const margin = rules.maxPerDay ? DAY_MS : 0;
  const busy = await listBusyIntervals(
    tx,
    organizationId,
    agent.id,
    new Date(span.from.getTime() - margin),
    new Date(span.to.getTime() + margin),
    exceptId,
  );
  return { free: underDailyMaximum(rules, freeSlots(rules, open, busy, now), busy), blocks };
}

export async function freeSlotsOn(
  tx: Tx,
  organizationId: string,
  agent: { id: string; booking: AgentBookingSettings },
  dates: string[],
  now: number,
  exceptId: string | null = null,
): Promise<Slot[]> {
  return (await slotsOn(tx, organizationId, agent, dates, now, exceptId)).free;
}

/**
 * The free slot `date startTime` of the agent at `now` (`exceptId`'s own time counting as free), inside
 * the caller's transaction: 400 naming body.date or body.startTime when the agent never offers it or it
 * falls on a closed day or in the agent's time off, with `pick` saying where the offered slots are; 409
 * DUPLICATE (`pickAnother`) when an appointment holds it or its day is full.
 */
export async function requireFreeSlot(
  tx: Tx,
  organizationId: string,
  agent: { id: string; booking: AgentBookingSettings | null },
  body: { date: string; startTime: string },
  options: { now: number; pick: string; pickAnother: string; exceptId?: string | null },
): Promise<Slot> {
  const booking = agent.booking;
  requireOfferedSlot(booking, options.pick, body.date, body.startTime, options.now);
  // The daily maximum is counted, not constrained (appointments_no_overlap only stops overlaps): two
  // writes for different slots of one agent take turns, so the second counts the first's appointment.
  if (booking.maxPerDay) {
    await lockAgentBookings(tx, agent.id);
  }
  const { free, blocks } = await slotsOn(
    tx,
    organizationId,
    { id: agent.id, booking },
    [body.date],
    options.now,
    options.exceptId ?? null,
  );
  const slot = free.find((candidate) => candidate.time === body.startTime);
  if (slot) return slot;
  const asked = gridSlots(booking, [body.date]).find((candidate) => candidate.time === body.startTime);
  const blocked = asked && blocks ? blockedBy(asked, blocks) : null;
  if (blocked) throw Errors.invalidField(`body.${blocked.field}`, `${blocked.message}: ${options.pick}`);
  throw slotUnavailable(body.date, body.startTime, options.pickAnother);
}

/** The agents that take online bookings, by name. */
export async function listBookableAgents(db: Database, caller: Caller): Promise<BookingAgentCard[]> {
  const organizationId = caller.organization.id;
  const agents = await readAs(db, caller, (tx) => listBookingAgents(tx, organizationId));
  return agents
    .filter((agent): agent is BookingAgent & { booking: AgentBookingSettings } => agent.booking !== null)
    .map((agent) => ({
      id: agent.id,
      slug: agent.slug,
      firstName: agent.firstName,
      lastName: agent.lastName,
      fullName: agent.fullName,
      photoUrl: agent.photoUrl,
      autoConfirm: agent.booking.autoConfirm,
      slotMinutes: agent.booking.slotMinutes,
      timezone: agent.booking.timezone,
    }));
}

/**
 * The free slots of a month on an agent's booking page, in the agent's time zone (month and year
 * default to the agent's current ones). `configured: false` and no dates when the agent has no
 * booking hours; 404 when no active agent of the organization has the slug.
 */
export async function getAvailability(
  db: Database,
  caller: Caller,
  slug: string,
  query: AvailabilityQuery,
  now = Date.now(),
): Promise<BookingAvailability> {
  const organizationId = caller.organization.id;
  return readAs(db, caller, async (tx) =>
    availabilityOf(tx, organizationId, await requireBookingAgent(tx, organizationId, slug), query, now),
  );
}

/**
 * The free slots of a month of an agent, inside the caller's transaction (`exceptId`'s own time
 * counting as free: a visit being moved): the booking page's availability and a manage link's.
 */
export async function availabilityOf(
  tx: Tx,
  organizationId: string,
  agent: { id: string; booking: AgentBookingSettings | null },
  query: AvailabilityQuery,
  now: number,
  exceptId: string | null = null,
): Promise<BookingAvailability> {
  const booking = agent.booking;
  const today = wallClock(now, booking?.timezone ?? 'UTC').date;
  const year = query.year ?? Number(today.slice(0, 4));
  const month = query.month ?? Number(today.slice(5, 7)) - 1;
  const base = {
    timezone: booking?.timezone ?? null,
    slotMinutes: booking?.slotMinutes ?? null,
    month,
    year,
  };
  if (!configured(booking)) return { configured: false, ...base, availableDates: [] };
  const dates = bookableDates(booking, year, month, now);
  const slots = await freeSlotsOn(tx, organizationId, { id: agent.id, booking }, dates, now, exceptId);
  return { configured: true, ...base, availableDates: groupByDate(slots) };
}

/**
 * Books a slot on an agent's page, all in one transaction: the slot must be one the agent offers
 * (400 naming `body.date` or `body.startTime` otherwise) and free now (409 DUPLICATE otherwise), the person becomes or updates a contact owned by the agent, the
 * appointment is CONFIRMED or SCHEDULED by the agent's autoConfirm, the agent gets a notification
 * task, and `appointment.created` is recorded. Two bookings racing for one slot: the database's
 * no-overlap constraint lets exactly one commit; the other gets the same 409.
 */
export async function bookSlot(
  db: Database,
  caller: Caller,
  slug: string,
  body: CreateBookingBody,
  language: string | null = null,
): Promise<Omit<BookingReceipt, 'manageUrl'>> {
  const organizationId = caller.organization.id;
  const phone = normalizePhone(body.phone, caller.organization.defaultCountry);
  const type: AppointmentType = body.type ?? 'SHOWING';
  const actor = actorOf(caller);
  try {
    return await writeAs(db, caller, async (tx) => {
      const agent = await requireBookingAgent(tx, organizationId, slug);
      const property =
        body.propertyId === undefined
          ? null
          : await requirePortalProperty(tx, organizationId, body.propertyId);
      const slot = await requireFreeSlot(tx, organizationId, agent, body, {
        now: Date.now(),
        pick: `pick one from GET /v1/booking/${slug}/availability`,
        pickAnother: `pick another from GET /v1/booking/${slug}/availability`,
      });
      const booking = agent.booking as AgentBookingSettings;

      const { contact } = await upsertPortalContact(
        tx,
        organizationId,
        {
          firstName: body.firstName,
          lastName: body.lastName,
          phone,
          email: body.email,
          source: 'BOOKING',
          ownerId: agent.id,
          preferredLanguage: language,
        },
        actor,
      );
      const status: BookingStatus = booking.autoConfirm ? 'CONFIRMED' : 'SCHEDULED';
      const appointment = await insertAppointmentInTx(tx, {
        id: newId('apt'),
        organizationId,
        agentId: agent.id,
        contactId: contact.id,
        propertyId: property?.id ?? null,
        type,
        status,
        startsAt: new Date(slot.startsAt),
        endsAt: new Date(slot.endsAt),
        source: 'BOOKING',
        notes: body.notes ?? null,
      });
      await recomputeContactScore(tx, organizationId, contact.id);
      const name = [body.firstName.trim(), body.lastName?.trim()].filter(Boolean).join(' ');
      await insertTaskInTx(tx, {
        id: newId('task'),
        organizationId,
        title: `New booking: ${name} on ${body.date} ${body.startTime}`,
        description: [
          `${type} ${status.toLowerCase()} for ${body.date} ${body.startTime} (${booking.timezone}).`,
          `Contact: ${name}, ${phone}${body.email ? `, ${body.email}` : ''}.`,
          property ? `Property: ${property.title} (${property.id}).` : null,
          body.notes ? `Notes: ${body.notes}` : null,
        ]
          .filter(Boolean)
          .join('\n'),
        type: 'NOTIFICATION',
        status: 'PENDING',
        dueAt: new Date(),
        assigneeId: agent.id,
        contactId: contact.id,
        appointmentId: appointment.id,
      });
      await recordEvent(tx, {
        type: AppointmentCreated.type,
        data: {
          appointment: {
            id: appointment.id,
            agentId: agent.id,
            contactId: contact.id,
            propertyId: appointment.propertyId,
            type,
            status,
            startsAt: appointment.startsAt.toISOString(),
            endsAt: appointment.endsAt.toISOString(),
            timezone: booking.timezone,
            source: appointment.source,
            notes: appointment.notes,
          },
          contact: {
            id: contact.id,
            firstName: contact.firstName,
            lastName: contact.lastName,
            fullName: contact.fullName,
            phone: contact.phone,
            email: contact.email,
          },
        },
        actor,
      });
      return {
        appointmentId: appointment.id,
        status,
        ownerNotified: true,
        startsAt: appointment.startsAt.toISOString(),
        endsAt: appointment.endsAt.toISOString(),
        agentId: agent.id,
        contactId: contact.id,
      };
    });
  } catch (error) {
    // A parallel booking of an overlapping slot committed first (appointments_no_overlap).
    if (databaseError(error)?.code === EXCLUSION_VIOLATION) throw slotUnavailable(body.date, body.startTime);
    throw error;
  }
}
