// The v1 appointment lifecycle (issue 21, item 4): events of a v1 create, reschedule, cancel.
import type { Database, Tx } from '../../db/database.ts';
import type { AppointmentRow } from '../../db/schema.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import { recomputeContactScore } from '../contacts/index.ts';
import { AppointmentCreated, AppointmentUpdated } from './appointments.events.ts';
import type { Appointment } from './appointments.schema.ts';
import {
  eventAppointment,
  eventContact,
  isActive,
  loadAppointment,
  toAppointment,
} from './appointments.service.ts';
import * as store from './appointments.store.ts';

/**
 * Records `appointment.created` for a row the caller stored inside its transaction (the v1 create,
 * which checked the slot in the booking feature): the same payload as the back office's.
 */
export async function recordAppointmentCreated(
  tx: Tx,
  organizationId: string,
  row: AppointmentRow,
  actor: Actor,
): Promise<void> {
  await recordAppointmentEvent(tx, organizationId, row, { type: AppointmentCreated.type }, actor);
}

/**
 * Moves an active appointment to [startsAt, endsAt) inside the caller's transaction, which checked
 * the new slot; its old time is free the moment the row changes. Records `appointment.updated`
 * naming `startsAt` and `endsAt`. The no-overlap constraint still has the last word.
 */
export async function moveAppointmentInTx(
  tx: Tx,
  organizationId: string,
  current: AppointmentRow,
  span: { startsAt: Date; endsAt: Date },
  actor: Actor,
): Promise<Appointment> {
  const row = await store.updateAppointment(tx, organizationId, current.id, span);
  if (!row) throw Errors.notFound('Appointment', current.id);
  await recordUpdated(tx, organizationId, row, ['endsAt', 'startsAt'], actor);
  return toAppointment(row);
}

/**
 * 409 CONFLICT unless the appointment still holds the agent's time (SCHEDULED or CONFIRMED): a
 * cancelled, completed or no-show appointment is history, not a booking to move.
 */
export function requireActive(row: AppointmentRow, action: string): void {
  if (!isActive(row.status)) {
    throw Errors.conflict(
      `Appointment ${row.id} is ${row.status}: only a SCHEDULED or CONFIRMED appointment can be ${action}; create a new one instead`,
      { status: row.status },
    );
  }
}

/** `appointment.created` or `.updated` (with `changes`) for `row`, with its agent and contact. */
async function recordAppointmentEvent(
  tx: Tx,
  organizationId: string,
  row: AppointmentRow,
  event: { type: string; changes?: string[] },
  actor: Actor,
): Promise<void> {
  const agent = await store.findAgentRef(tx, organizationId, row.agentId);
  const contact = row.contactId ? await store.findContactRef(tx, organizationId, row.contactId) : null;
  const data = { appointment: eventAppointment(row, agent), contact: eventContact(contact) };
  await recordEvent(tx, {
    type: event.type,
    data: event.changes ? { ...data, changes: event.changes } : data,
    actor,
  });
}

const recordUpdated = (
  tx: Tx,
  organizationId: string,
  row: AppointmentRow,
  changes: string[],
  actor: Actor,
) => recordAppointmentEvent(tx, organizationId, row, { type: AppointmentUpdated.type, changes }, actor);

/**
 * Cancels an appointment through v1: status CANCELLED, the agent's time free again, the reason kept
 * as a `Cancelled: …` line after the notes (there is no column of its own). Records
 * `appointment.updated` naming `status` and `notes`, as the caller's. An appointment already CANCELLED
 * is answered as it is, with no event (a retried cancel is harmless); COMPLETED or NO_SHOW is a 409 CONFLICT.
 */
export async function cancelAppointment(
  db: Database,
  caller: Caller,
  appointmentId: string,
  reason: string | undefined,
): Promise<Appointment> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const current = await loadAppointment(tx, organizationId, appointmentId);
    return cancelAppointmentInTx(tx, organizationId, current, reason, actorOf(caller));
  });
}

/** `cancelAppointment` on a row the caller loaded inside its transaction (a visitor's manage link). */
export async function cancelAppointmentInTx(
  tx: Tx,
  organizationId: string,
  current: AppointmentRow,
  reason: string | undefined,
  actor: Actor,
): Promise<Appointment> {
  if (current.status === 'CANCELLED') return toAppointment(current);
  requireActive(current, 'cancelled');
  const line = reason?.trim() ? `Cancelled: ${reason.trim()}` : null;
  const notes = line ? [current.notes, line].filter(Boolean).join('\n') : current.notes;
  const row = await store.updateAppointment(tx, organizationId, current.id, { status: 'CANCELLED', notes });
  if (!row) throw Errors.notFound('Appointment', current.id);
  // Cancelled appointments do not count toward the contact's score.
  if (row.contactId) await recomputeContactScore(tx, organizationId, row.contactId);
  await recordUpdated(tx, organizationId, row, line ? ['notes', 'status'] : ['status'], actor);
  return toAppointment(row);
}
