import type { Database, Tx } from '../../db/database.ts';
import { ACTIVE_APPOINTMENT_STATUSES, type AppointmentRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { tombstoneOf } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { isId, newId } from '../../platform/ids/ids.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { AppointmentCreated } from './appointments.events.ts';
import { AppointmentDeleted, AppointmentUpdated } from './appointments.events.ts';
import {
  MAX_APPOINTMENT_MINUTES,
  type Appointment,
  type AppointmentStatus,
  type CreateAppointmentBody,
  type UpdateAppointmentBody,
} from './appointments.schema.ts';
import * as store from './appointments.store.ts';
import { recomputeContactScore } from '../contacts/index.ts';
import { isPropertyOf } from '../properties/index.ts';

const MINUTE = 60_000;
/** Length of a back-office appointment for an agent without booking settings (no slot length to go by). */
const DEFAULT_MINUTES = 30;

export const isActive = (status: string) =>
  (ACTIVE_APPOINTMENT_STATUSES as readonly string[]).includes(status);

export function toAppointment(row: AppointmentRow): Appointment {
  return {
    id: row.id,
    agentId: row.agentId,
    contactId: row.contactId,
    propertyId: row.propertyId,
    type: row.type,
    status: row.status,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    durationMinutes: Math.round((row.endsAt.getTime() - row.startsAt.getTime()) / MINUTE),
    source: row.source,
    notes: row.notes,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The appointment as its events carry it: the members of `appointment.created`. */
export function eventAppointment(row: AppointmentRow, agent: store.AgentRef | null) {
  return {
    id: row.id,
    agentId: row.agentId,
    contactId: row.contactId,
    propertyId: row.propertyId,
    type: row.type,
    status: row.status,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    // An agent without booking settings has no zone of their own: the instants are UTC anyway.
    timezone: agent?.timezone ?? 'UTC',
    source: row.source,
    notes: row.notes,
  };
}

export function eventContact(contact: store.ContactRef | null) {
  if (!contact) return null;
  return {
    id: contact.id,
    firstName: contact.firstName,
    lastName: contact.lastName,
    fullName: [contact.firstName, contact.lastName].filter(Boolean).join(' '),
    phone: contact.phone,
    email: contact.email,
  };
}

/**
 * An overlap with another active appointment of the agent that a parallel write committed first
 * (appointments_no_overlap) is the same 409 as one found beforehand.
 */
const OVERLAP_CONFLICT = {
  appointments_no_overlap:
    'The agent already has a SCHEDULED or CONFIRMED appointment at that time: pick another time, or cancel the other appointment',
};

export async function loadAppointment(
  tx: Tx,
  organizationId: string,
  id: string,
  lock = false,
): Promise<AppointmentRow> {
  const row = isId(id, 'apt') ? await store.findAppointmentById(tx, organizationId, id, lock) : null;
  if (!row) throw Errors.notFound('Appointment', id);
  return row;
}

async function requireAgent(tx: Tx, organizationId: string, id: string): Promise<store.AgentRef> {
  const agent = isId(id, 'agt') ? await store.findAgentRef(tx, organizationId, id) : null;
  if (!agent) throw Errors.invalidField('body.agentId', 'does not name an agent of this organization');
  return agent;
}

async function requireContact(tx: Tx, organizationId: string, id: string): Promise<store.ContactRef> {
  const contact = isId(id, 'ct') ? await store.findContactRef(tx, organizationId, id) : null;
  if (!contact) throw Errors.invalidField('body.contactId', 'does not name a contact of this organization');
  return contact;
}

async function checkProperty(tx: Tx, organizationId: string, id: string | null | undefined): Promise<void> {
  if (id === null || id === undefined) return;
  if (!(await isPropertyOf(tx, organizationId, id))) {
    throw Errors.invalidField('body.propertyId', 'does not name a property of this organization');
  }
}

/**
 * The appointment `id` names inside the caller's transaction (tasks link to one); a 400 naming
 * `field` when it is malformed, unknown or another organization's.
 */
export async function requireAppointmentRef(
  tx: Tx,
  organizationId: string,
  id: string,
  field: string,
): Promise<{ id: string }> {
  const row = isId(id, 'apt') ? await store.findAppointmentById(tx, organizationId, id) : null;
  if (!row) throw Errors.invalidField(field, 'does not name an appointment of this organization');
  return { id: row.id };
}

/** The end of an appointment from what the body sent; a 400 naming the field for an impossible span. */
function endOf(
  startsAt: Date,
  body: { endsAt?: string; durationMinutes?: number },
  fallbackMinutes: number,
): Date {
  if (body.endsAt !== undefined && body.durationMinutes !== undefined) {
    throw Errors.invalidField('body.durationMinutes', 'cannot be sent together with endsAt');
  }
  if (body.endsAt === undefined) {
    return new Date(startsAt.getTime() + (body.durationMinutes ?? fallbackMinutes) * MINUTE);
  }
  const endsAt = new Date(body.endsAt);
  if (endsAt.getTime() <= startsAt.getTime())
    throw Errors.invalidField('body.endsAt', 'must be later than startsAt');
  if (endsAt.getTime() - startsAt.getTime() > MAX_APPOINTMENT_MINUTES * MINUTE) {
    throw Errors.invalidField('body.endsAt', 'must be at most 24 hours after startsAt');
  }
  return endsAt;
}

/** 409 when the agent has another active appointment overlapping [startsAt, endsAt), named in the answer. */
async function checkFree(
  tx: Tx,
  organizationId: string,
  slot: { agentId: string; status: string; startsAt: Date; endsAt: Date },
  exceptId: string | null,
): Promise<void> {
  if (!isActive(slot.status)) return;
  const clash = await store.findOverlapping(
    tx,
    organizationId,
    slot.agentId,
    slot.startsAt,
    slot.endsAt,
    exceptId,
  );
  if (clash) {
    throw Errors.duplicate(
      `Agent ${slot.agentId} already has appointment ${clash.id} (${clash.status}) from ` +
        `${clash.startsAt.toISOString()} to ${clash.endsAt.toISOString()}: pick another time, or cancel that appointment`,
      { existingId: clash.id },
    );
  }
}

/**
 * Creates an appointment in the back office (source ADMIN): the agent, contact and property must be
 * the organization's (400 naming the field), and an active appointment must not overlap another
 * active one of the agent (409 DUPLICATE). Records `appointment.created` as the caller's, as a booking does.
 */
export async function createAppointment(
  db: Database,
  caller: Caller,
  body: CreateAppointmentBody,
): Promise<Appointment> {
  const organizationId = caller.organization.id;
  return writeAs(
    db,
    caller,
    async (tx) => {
      const agent = await requireAgent(tx, organizationId, body.agentId);
      const contact = await requireContact(tx, organizationId, body.contactId);
      await checkProperty(tx, organizationId, body.propertyId);
      const startsAt = new Date(body.startsAt);
      const endsAt = endOf(startsAt, body, agent.slotMinutes ?? DEFAULT_MINUTES);
      const status: AppointmentStatus = body.status ?? 'SCHEDULED';
      await checkFree(tx, organizationId, { agentId: agent.id, status, startsAt, endsAt }, null);
      const row = await store.insertAppointment(tx, {
        id: newId('apt'),
        organizationId,
        agentId: agent.id,
        contactId: contact.id,
        propertyId: body.propertyId ?? null,
        type: body.type ?? 'SHOWING',
        status,
        startsAt,
        endsAt,
        source: 'ADMIN',
        notes: body.notes ?? null,
      });
      await recomputeContactScore(tx, organizationId, contact.id);
      await recordEvent(tx, {
        type: AppointmentCreated.type,
        data: { appointment: eventAppointment(row, agent), contact: eventContact(contact) },
        actor: actorOf(caller),
      });
      return toAppointment(row);
    },
    OVERLAP_CONFLICT,
  );
}

/**
 * Changes some fields of an appointment. Moving `startsAt` keeps the length unless `endsAt` or
 * `durationMinutes` comes too. Setting CANCELLED, COMPLETED or NO_SHOW frees the agent's time;
 * returning to SCHEDULED/CONFIRMED, moving or reassigning checks the overlap again (409).
 */
export async function updateAppointment(
  db: Database,
  caller: Caller,
  appointmentId: string,
  body: UpdateAppointmentBody,
): Promise<Appointment> {
  const organizationId = caller.organization.id;
  return writeAs(
    db,
    caller,
    async (tx) => {
      const current = await loadAppointment(tx, organizationId, appointmentId);
      const agent =
        body.agentId !== undefined
          ? await requireAgent(tx, organizationId, body.agentId)
          : await store.findAgentRef(tx, organizationId, current.agentId);
      if (body.contactId !== undefined) await requireContact(tx, organizationId, body.contactId);
      await checkProperty(tx, organizationId, body.propertyId);
      const startsAt = body.startsAt !== undefined ? new Date(body.startsAt) : current.startsAt;
      const length = (current.endsAt.getTime() - current.startsAt.getTime()) / MINUTE;
      const endsAt =
        body.endsAt === undefined && body.durationMinutes === undefined
          ? new Date(startsAt.getTime() + length * MINUTE)
          : endOf(startsAt, body, length);
      const status = body.status ?? current.status;
      await checkFree(
        tx,
        organizationId,
        { agentId: agent?.id ?? current.agentId, status, startsAt, endsAt },
        current.id,
      );

      const changes: Partial<store.NewAppointment> = { startsAt, endsAt, status };
      if (body.agentId !== undefined) changes.agentId = body.agentId;
      if (body.contactId !== undefined) changes.contactId = body.contactId;
      if (body.propertyId !== undefined) changes.propertyId = body.propertyId;
      if (body.type !== undefined) changes.type = body.type;
      if (body.notes !== undefined) changes.notes = body.notes;
      const row = await store.updateAppointment(tx, organizationId, appointmentId, changes);
      if (!row) throw Errors.notFound('Appointment', appointmentId);
      // Appointments count toward the contact's score (cancelled ones do not): both contacts change.
      for (const contactId of new Set([current.contactId, row.contactId])) {
        if (contactId) await recomputeContactScore(tx, organizationId, contactId);
      }
      const contact = row.contactId ? await store.findContactRef(tx, organizationId, row.contactId) : null;
      await recordEvent(tx, {
        type: AppointmentUpdated.type,
        data: {
          appointment: eventAppointment(row, agent),
          contact: eventContact(contact),
          changes: Object.keys(body).sort(),
        },
        actor: actorOf(caller),
      });
      return toAppointment(row);
    },
    OVERLAP_CONFLICT,
  );
}

/** Deletes an appointment (its time is free again; tasks linked to it stay, unlinked), recorded as the caller's. */
export async function deleteAppointment(
  db: Database,
  caller: Caller,
  appointmentId: string,
): Promise<{ id: string; deleted: true }> {
  const organizationId = caller.organization.id;
  return writeAs(
    db,
    caller,
    async (tx) => {
      const row = isId(appointmentId, 'apt')
        ? await store.deleteAppointment(tx, organizationId, appointmentId)
        : null;
      if (!row) throw Errors.notFound('Appointment', appointmentId);
      if (row.contactId) await recomputeContactScore(tx, organizationId, row.contactId);
      await recordEvent(tx, {
        type: AppointmentDeleted.type,
        data: { appointment: tombstoneOf(row.id) },
        actor: actorOf(caller),
      });
      return { id: appointmentId, deleted: true as const };
    },
    OVERLAP_CONFLICT,
  );
}

/**
 * Stores an appointment inside the caller's transaction (the booking's, which checked the slot
 * itself; the no-overlap constraint still has the last word). Records no event: the caller does.
 */
export async function insertAppointmentInTx(tx: Tx, row: store.NewAppointment): Promise<AppointmentRow> {
  return store.insertAppointment(tx, row);
}

/** An agent's appointments that hold time (SCHEDULED, CONFIRMED) and overlap [from, to), in ms. */
export const listBusyIntervals = store.listBusyIntervals;

export { lockAgentBookings } from './appointments.store.ts';
