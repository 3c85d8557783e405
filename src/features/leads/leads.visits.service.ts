// Deciding a visit request through v1 (issue 21, item 5): confirm (an appointment is made) or decline.
import { writeAs } from '../../platform/tenancy/caller-tx.ts';
import type { Database, Tx } from '../../db/database.ts';
import { actorOf, type Caller } from '../../platform/auth/caller.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { isId } from '../../platform/ids/ids.ts';
import type { Appointment } from '../appointments/index.ts';
import { createApiAppointmentInTx } from '../booking/index.ts';
import { VisitRequestConfirmed, VisitRequestDeclined } from './leads.events.ts';
import { toVisitRequest } from './leads.read.ts';
import type { VisitRequest } from './leads.schema.ts';
import type { ConfirmVisitRequestBody, DeclineVisitRequestBody } from './leads.visits.schema.ts';
import * as store from './leads.store.ts';

/**
 * The PENDING visit request `id` names, locked for the rest of the transaction: 404 when it is
 * malformed, unknown or another organization's; 409 CONFLICT naming its status once it is decided
 * (a request is decided once; the loser of two racing decisions waits on the lock, then gets the 409).
 */
async function lockPending(tx: Tx, organizationId: string, id: string): Promise<store.VisitRequestRow> {
  const row = isId(id, 'vr') ? await store.lockVisitRequest(tx, organizationId, id) : null;
  if (!row) throw Errors.notFound('Visit request', id);
  if (row.status !== 'PENDING') {
    throw Errors.conflict(
      `Visit request ${id} is ${row.status}: only a PENDING request can be confirmed or declined`,
      { status: row.status },
    );
  }
  return row;
}

/** The request as the decision events carry it. */
function eventVisitRequest(row: store.VisitRequestRow) {
  return {
    id: row.id,
    status: row.status,
    propertyId: row.propertyId,
    contactId: row.contactId,
    preferredDate: row.preferredDate,
    preferredTime: row.preferredTime,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    appointmentId: row.appointmentId,
    declineReason: row.declineReason,
    decidedAt: (row.decidedAt ?? new Date()).toISOString(),
  };
}

function eventAppointment(appointment: Appointment) {
  const { id, agentId, contactId, propertyId, type, status, startsAt, endsAt, source } = appointment;
  return { id, agentId, contactId, propertyId, type, status, startsAt, endsAt, source };
}

/** The decided request as the API answers it (with its contact's and property's names). */
async function answer(tx: Tx, organizationId: string, id: string): Promise<VisitRequest> {
  const row = await store.findVisitRequestById(tx, organizationId, id);
  if (!row) throw Errors.notFound('Visit request', id);
  return toVisitRequest(row);
}

/**
 * POST /v1/visit-requests/{id}/confirm: in one transaction, creates the appointment with the
 * request's contact and property through the v1 appointment path (same slot rules, 400s and 409
 * DUPLICATE, `appointment.created`), sets the request CONFIRMED with its appointmentId and
 * decidedAt, and records `visit_request.confirmed`. Nothing is kept when any step fails.
 */
export async function confirmVisitRequest(
  db: Database,
  caller: Caller,
  id: string,
  body: ConfirmVisitRequestBody,
): Promise<VisitRequest> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    const request = await lockPending(tx, organizationId, id);
    const appointment = await createApiAppointmentInTx(tx, caller, {
      agentId: body.agentId,
      contactId: request.contactId,
      propertyId: request.propertyId,
      date: body.date,
      startTime: body.startTime,
      ...(body.type === undefined ? {} : { type: body.type }),
    });
    const row = await store.decideVisitRequest(tx, organizationId, id, {
      status: 'CONFIRMED',
      appointmentId: appointment.id,
    });
    if (!row) throw Errors.notFound('Visit request', id);
    await recordEvent(tx, {
      type: VisitRequestConfirmed.type,
      data: { visitRequest: eventVisitRequest(row), appointment: eventAppointment(appointment) },
      actor: actorOf(caller),
    });
    return answer(tx, organizationId, id);
  });
}

/**
 * POST /v1/visit-requests/{id}/decline: sets the request DECLINED with the trimmed reason and
 * decidedAt, and records `visit_request.declined`, in one transaction.
 */
export async function declineVisitRequest(
  db: Database,
  caller: Caller,
  id: string,
  body: DeclineVisitRequestBody,
): Promise<VisitRequest> {
  const organizationId = caller.organization.id;
  return writeAs(db, caller, async (tx) => {
    await lockPending(tx, organizationId, id);
    const row = await store.decideVisitRequest(tx, organizationId, id, {
      status: 'DECLINED',
      declineReason: body.reason.trim(),
    });
    if (!row) throw Errors.notFound('Visit request', id);
    await recordEvent(tx, {
      type: VisitRequestDeclined.type,
      data: { visitRequest: eventVisitRequest(row) },
      actor: actorOf(caller),
    });
    return answer(tx, organizationId, id);
  });
}
