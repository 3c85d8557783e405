import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import { databaseError, EXCLUSION_VIOLATION } from '../../db/errors.ts';
import type { AgentBookingSettings } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { newId } from '../../platform/ids/ids.ts';
import { findBookingAgentById } from '../agents/index.ts';
import {
  type Appointment,
  insertAppointmentInTx,
  loadAppointment,
  moveAppointmentInTx,
  recordAppointmentCreated,
  requireActive,
  toAppointment,
} from '../appointments/index.ts';
import { isContactOf, recomputeContactScore } from '../contacts/index.ts';
import { isPropertyOf } from '../properties/index.ts';
import type { CreateApiAppointmentBody, RescheduleAppointmentBody } from './booking.appointments.schema.ts';
import { requireFreeSlot, slotUnavailable } from './booking.service.ts';
import type { Slot } from './booking.slots.ts';

// The v1 appointment writes live here, not in the appointments feature: they check slots with the
// booking's rules, and booking already depends on appointments (decision 0199).

const PICK = "pick one from GET /v1/booking/{slug}/availability of the appointment's agent";
const PICK_ANOTHER = "pick another from GET /v1/booking/{slug}/availability of the appointment's agent";

/** The free slot the body names, at the time of the call (booking.service.ts requireFreeSlot). */
function requireSlot(
  tx: Tx,
  organizationId: string,
  agent: { id: string; booking: AgentBookingSettings | null },
  body: { date: string; startTime: string },
  exceptId: string | null,
): Promise<Slot> {
  return requireFreeSlot(tx, organizationId, agent, body, {
    now: Date.now(),
    pick: PICK,
    pickAnother: PICK_ANOTHER,
    exceptId,
  });
}

/** A racing write that committed first (appointments_no_overlap) is the same 409 as one seen beforehand. */
async function slotAtomic<T>(body: { date: string; startTime: string }, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (databaseError(error)?.code === EXCLUSION_VIOLATION) {
      throw slotUnavailable(body.date, body.startTime, PICK_ANOTHER);
    }
    throw error;
  }
}

/**
 * Creates an appointment through v1 (source API) on a slot the agent offers and nobody holds, in
 * one transaction: 400 naming the field for an agent, contact or property not the organization's or
 * a slot never offered; 409 DUPLICATE for a taken one (also when two writes race: exactly one
 * commits). CONFIRMED or SCHEDULED by the agent's autoConfirm; records `appointment.created`.
 */
export async function createApiAppointment(
  db: Database,
  caller: Caller,
  body: CreateApiAppointmentBody,
): Promise<Appointment> {
  return writeAs(db, caller, (tx) => createApiAppointmentInTx(tx, caller, body));
}

/**
 * The v1 appointment creation inside the caller's transaction (a visit request's confirmation
 * creates its appointment and decides the request in one): the same checks, answers and event as
 * POST /v1/appointments. A slot a parallel write took first ends the caller's transaction with the
 * same 409 DUPLICATE.
 */
export async function createApiAppointmentInTx(
  tx: Tx,
  caller: Caller,
  body: CreateApiAppointmentBody,
): Promise<Appointment> {
  const organizationId = caller.organization.id;
  return slotAtomic(body, async () => {
    const agent = await findBookingAgentById(tx, organizationId, body.agentId);
    if (!agent)
      throw Errors.invalidField('body.agentId', 'does not name an active agent of this organization');
    if (!(await isContactOf(tx, organizationId, body.contactId))) {
      throw Errors.invalidField('body.contactId', 'does not name a contact of this organization');
    }
    if (body.propertyId !== undefined && !(await isPropertyOf(tx, organizationId, body.propertyId))) {
      throw Errors.invalidField('body.propertyId', 'does not name a property of this organization');
    }
    const slot = await requireSlot(tx, organizationId, agent, body, null);
    const row = await insertAppointmentInTx(tx, {
      id: newId('apt'),
      organizationId,
      agentId: agent.id,
      contactId: body.contactId,
      propertyId: body.propertyId ?? null,
      type: body.type ?? 'SHOWING',
      status: agent.booking?.autoConfirm ? 'CONFIRMED' : 'SCHEDULED',
      startsAt: new Date(slot.startsAt),
      endsAt: new Date(slot.endsAt),
      source: 'API',
      notes: null,
    });
    await recomputeContactScore(tx, organizationId, body.contactId);
    await recordAppointmentCreated(tx, organizationId, row, actorOf(caller));
    return toAppointment(row);
  });
}

/**
 * Moves an appointment to another slot of its agent in one transaction: the new slot is checked as
 * on create (its own current time counts as free), the old one is free once the row moves. Only a
 * SCHEDULED or CONFIRMED appointment moves (409 CONFLICT otherwise); records `appointment.updated`.
 */
export async function rescheduleAppointment(
  db: Database,
  caller: Caller,
  appointmentId: string,
  body: RescheduleAppointmentBody,
): Promise<Appointment> {
  const organizationId = caller.organization.id;
  return slotAtomic(body, () =>
    writeAs(db, caller, async (tx) => {
      const current = await loadAppointment(tx, organizationId, appointmentId);
      requireActive(current, 'rescheduled');
      const agent = await findBookingAgentById(tx, organizationId, current.agentId);
      const slot = await requireSlot(
        tx,
        organizationId,
        { id: current.agentId, booking: agent?.booking ?? null },
        body,
        current.id,
      );
      return moveAppointmentInTx(
        tx,
        organizationId,
        current,
        { startsAt: new Date(slot.startsAt), endsAt: new Date(slot.endsAt) },
        actorOf(caller),
      );
    }),
  );
}
