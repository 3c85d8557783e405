import type { Database, Tx } from '../../db/database.ts';
import type { AgentBookingSettings, AgentRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { pageMeta, pageRequest } from '../../platform/http/pagination.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { normalizePhone } from '../../platform/text/phone.ts';
import { canonicalTimeZone, minutesOf } from '../../platform/time/clock-time.ts';
import { AgentCreated, AgentDeleted, AgentUpdated } from './agents.events.ts';
import {
  BOOKING_DEFAULTS,
  isReservedBookingSlug,
  RESERVED_BOOKING_SLUGS,
  type AdminAgent,
  type BookingChange,
  type CreateAgentBody,
  type ListAgentsQuery,
  type PortalAgent,
  type PortalAgentsQuery,
  type UpdateAgentBody,
} from './agents.schema.ts';
import * as store from './agents.store.ts';

/** First and last name, as the views show them (a last name may be empty). */
export const fullName = (agent: Pick<AgentRow, 'firstName' | 'lastName'>) =>
  [agent.firstName, agent.lastName].filter(Boolean).join(' ');

/** Takes online bookings: active, with a slug and booking settings. */
export function isBookable(agent: AgentRow): boolean {
  return agent.active && agent.bookingSlug !== null && agent.booking !== null;
}

/** The person as every view shows them: the back office's and the portal's. */
function profileOf(row: AgentRow) {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    fullName: fullName(row),
    email: row.email,
    phone: row.phone,
    photoUrl: row.photoUrl,
    bio: row.bio,
  };
}

/** Booking settings as answers show them: settings stored before a member existed get its default. */
function shownBooking(booking: AgentBookingSettings | null) {
  return booking === null ? null : { ...booking, maxPerDay: booking.maxPerDay ?? null };
}

// Per row: added to the profile's object, not spread into a new one (decision 0251).
function toAdminAgent(row: AgentRow): AdminAgent {
  return Object.assign(profileOf(row), {
    active: row.active,
    showOnPortal: row.showOnPortal,
    bookingSlug: row.bookingSlug,
    booking: shownBooking(row.booking),
    bookable: isBookable(row),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  });
}

function toPortalAgent(row: AgentRow): PortalAgent {
  return Object.assign(profileOf(row), { bookingSlug: isBookable(row) ? row.bookingSlug : null });
}

function eventAgent(row: AgentRow) {
  return {
    id: row.id,
    firstName: row.firstName,
    lastName: row.lastName,
    email: row.email,
    phone: row.phone,
    photoUrl: row.photoUrl,
    active: row.active,
    showOnPortal: row.showOnPortal,
    bookingSlug: row.bookingSlug,
    bookable: isBookable(row),
    booking: shownBooking(row.booking),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * Complete booking settings from the current ones and a change (defaults fill the rest), checked
 * beyond the schema: a known IANA zone (stored by its canonical name), windows that end after they
 * start (an end of 24:00 is minute 1440, midnight at the end of the day), and no two windows of one
 * weekday overlapping. null turns online booking off.
 */
export function bookingSettings(
  current: AgentBookingSettings | null,
  change: BookingChange | null | undefined,
  organizationTimeZone: string,
): AgentBookingSettings | null {
  if (change === null) return null;
  if (change === undefined) return current;
  const given = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
  const merged = {
    ...BOOKING_DEFAULTS,
    timezone: organizationTimeZone,
    ...(current ?? {}),
    ...given,
  } as AgentBookingSettings;
  const timezone = canonicalTimeZone(merged.timezone);
  if (!timezone) {
    throw Errors.invalidField('body.booking.timezone', 'is not an IANA time zone (e.g. Europe/Madrid)');
  }
  if (minutesOf(merged.startTime) >= minutesOf(merged.endTime)) {
    throw Errors.invalidField('body.booking.endTime', 'must be later than startTime');
  }
  merged.weeklyHours.forEach((entry, index) => {
    if (minutesOf(entry.startTime) >= minutesOf(entry.endTime)) {
      throw Errors.invalidField(`body.booking.weeklyHours[${index}].endTime`, 'must be later than startTime');
    }
    const clash = merged.weeklyHours.findIndex(
      (other, otherIndex) =>
        otherIndex < index &&
        other.weekday === entry.weekday &&
        minutesOf(other.startTime) < minutesOf(entry.endTime) &&
        minutesOf(entry.startTime) < minutesOf(other.endTime),
    );
    if (clash >= 0) {
      throw Errors.invalidField(
        `body.booking.weeklyHours[${index}]`,
        `overlaps weeklyHours[${clash}] on weekday ${entry.weekday}`,
      );
    }
  });
  return {
    autoConfirm: merged.autoConfirm,
    timezone,
    weekdays: [...merged.weekdays].sort((a, b) => a - b),
    startTime: merged.startTime,
    endTime: merged.endTime,
    weeklyHours: [...merged.weeklyHours]
      .map(({ weekday, startTime, endTime }) => ({ weekday, startTime, endTime }))
      .sort((a, b) => a.weekday - b.weekday || minutesOf(a.startTime) - minutesOf(b.startTime)),
    slotMinutes: merged.slotMinutes,
    bufferMinutes: merged.bufferMinutes,
    horizonDays: merged.horizonDays,
    minNoticeMinutes: merged.minNoticeMinutes,
    maxPerDay: merged.maxPerDay ?? null,
  };
}

/**
 * 400 naming body.bookingSlug for a reserved word (RESERVED_BOOKING_SLUGS): the router would send
 * that agent's booking page, or part of it, to a static route under /v1/booking/.
 */
function refuseReservedSlug(slug: string | null | undefined): void {
  if (slug && isReservedBookingSlug(slug)) {
    throw Errors.invalidField(
      'body.bookingSlug',
      `is reserved: "${slug}" names a route under /v1/booking/ (reserved: ${RESERVED_BOOKING_SLUGS.join(', ')})`,
    );
  }
}

/** A parallel write took the slug between a transaction's own check and its commit. */
function slugConflict(slug: string | null | undefined) {
  return { agents_organization_id_booking_slug_key: slugTaken(slug ?? '').message };
}

function slugTaken(slug: string) {
  return Errors.duplicate(`Booking slug ${slug} is already used by another agent of this organization`);
}

async function loadAgent(tx: Tx, organizationId: string, agentId: string): Promise<AgentRow> {
  const row = isId(agentId, 'agt') ? await store.findAgentById(tx, organizationId, agentId) : null;
  if (!row) throw Errors.notFound('Agent', agentId);
  return row;
}

/**
 * Creates an agent, recorded as the caller's (the operator in the back office); 400 for a reserved
 * booking slug, 409 DUPLICATE when the booking slug is taken in the organization.
 */
export async function createAgent(db: Database, caller: Caller, body: CreateAgentBody): Promise<AdminAgent> {
  const organizationId = caller.organization.id;
  refuseReservedSlug(body.bookingSlug);
  return writeAs(
    db,
    caller,
    async (tx, organization) => {
      const row = await store.insertAgent(tx, {
        id: newId('agt'),
        organizationId,
        firstName: body.firstName.trim(),
        lastName: body.lastName?.trim() ?? '',
        email: body.email?.trim() ?? null,
        phone: body.phone ? normalizePhone(body.phone, organization.defaultCountry) : null,
        photoUrl: body.photoUrl ?? null,
        bio: body.bio ?? null,
        active: body.active ?? true,
        showOnPortal: body.showOnPortal ?? true,
        bookingSlug: body.bookingSlug ?? null,
        booking: bookingSettings(null, body.booking, organization.timezone),
      });
      if (!row) throw slugTaken(body.bookingSlug ?? '');
      await recordEvent(tx, {
        type: AgentCreated.type,
        data: { agent: eventAgent(row) },
        actor: actorOf(caller),
      });
      return toAdminAgent(row);
    },
    slugConflict(body.bookingSlug),
  );
}

/** One agent, back-office view; 404 outside the organization. */
export async function getAgent(db: Database, caller: Caller, agentId: string): Promise<AdminAgent> {
  return readAs(db, caller, async (tx) => toAdminAgent(await loadAgent(tx, caller.organization.id, agentId)));
}

/** The organization's agents by name, optionally only (in)active or (not) bookable ones. */
export async function listAgents(db: Database, caller: Caller, query: ListAgentsQuery) {
  const page = pageRequest(query);
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listAgents(tx, caller.organization.id, { active: query.active, bookable: query.bookable }, page),
  );
  return { data: items.map(toAdminAgent), meta: pageMeta(total, page) };
}

/**
 * Changes some fields of an agent, recorded as the caller's. `booking` merges member by member onto
 * the current settings (null turns online booking off); the result is checked as a whole. A reserved
 * booking slug is a 400, a taken one a 409 DUPLICATE.
 */
export async function updateAgent(
  db: Database,
  caller: Caller,
  agentId: string,
  body: UpdateAgentBody,
): Promise<AdminAgent> {
  const organizationId = caller.organization.id;
  // Also when the agent holds it already (from before the word was reserved): sent, it is refused.
  refuseReservedSlug(body.bookingSlug);
  return writeAs(
    db,
    caller,
    async (tx, organization) => {
      const current = await loadAgent(tx, organizationId, agentId);
      const changes: Partial<store.NewAgent> = {};
      if (body.firstName !== undefined) changes.firstName = body.firstName.trim();
      if (body.lastName !== undefined) changes.lastName = body.lastName.trim();
      if (body.email !== undefined) changes.email = body.email?.trim() ?? null;
      if (body.phone !== undefined)
        changes.phone = body.phone === null ? null : normalizePhone(body.phone, organization.defaultCountry);
      if (body.photoUrl !== undefined) changes.photoUrl = body.photoUrl;
      if (body.bio !== undefined) changes.bio = body.bio;
      if (body.active !== undefined) changes.active = body.active;
      if (body.showOnPortal !== undefined) changes.showOnPortal = body.showOnPortal;
      if (body.bookingSlug !== undefined) {
        if (body.bookingSlug !== null && body.bookingSlug !== current.bookingSlug) {
          const holder = await store.findAgentBySlug(tx, organizationId, body.bookingSlug);
          if (holder) throw slugTaken(body.bookingSlug);
        }
        changes.bookingSlug = body.bookingSlug;
      }
      if (body.booking !== undefined)
        changes.booking = bookingSettings(current.booking, body.booking, organization.timezone);
      const row = await store.updateAgent(tx, organizationId, agentId, changes);
      if (!row) throw Errors.notFound('Agent', agentId);
      await recordEvent(tx, {
        type: AgentUpdated.type,
        data: { agent: eventAgent(row), changes: Object.keys(body).sort() },
        actor: actorOf(caller),
      });
      return toAdminAgent(row);
    },
    slugConflict(body.bookingSlug),
  );
}

/**
 * Deletes an agent, and with them their past appointments (the schema cascades). Refused (409)
 * while they hold upcoming appointments: those people are expecting someone. Deactivating the
 * agent (`active: false`) keeps the history instead.
 */
export async function deleteAgent(
  db: Database,
  caller: Caller,
  agentId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    await loadAgent(tx, organizationId, agentId);
    const upcoming = await store.countUpcomingAppointments(tx, organizationId, agentId, new Date());
    if (upcoming > 0) {
      throw Errors.duplicate(
        `Agent ${agentId} has ${upcoming} upcoming appointment(s): cancel them or deactivate the agent (active: false) instead`,
      );
    }
    const row = await store.deleteAgent(tx, organizationId, agentId);
    if (!row) throw Errors.notFound('Agent', agentId);
    await recordEvent(tx, {
      type: AgentDeleted.type,
      data: { agent: eventAgent(row) },
      actor: actorOf(caller),
    });
    return { id: agentId, deleted: true as const };
  });
}

/** The portal's team page: active agents shown on the portal, by name. */
export async function listPortalAgents(db: Database, caller: Caller, query: PortalAgentsQuery) {
  const page = pageRequest(query);
  const { items, total } = await readAs(db, caller, (tx) =>
    store.listPortalAgents(tx, caller.organization.id, page),
  );
  return { data: items.map(toPortalAgent), meta: pageMeta(total, page) };
}

/** True when `id` is an agent of the organization: how other features check an agent reference. */
export async function isAgentOf(tx: Tx, organizationId: string, id: string): Promise<boolean> {
  return isId(id, 'agt') && (await store.findAgentById(tx, organizationId, id)) !== null;
}
