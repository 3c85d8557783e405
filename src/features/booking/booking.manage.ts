// A visitor manages their own visit (issue 26 item 3, decision 0237): a signed link, no key, valid
// until the visit starts; see, cancel or move it to another free slot, atomically like a booking, the
// agent told by a notification task and the appointment events recorded.
import type { Database, Tx } from '../../db/database.ts';
import { databaseError, EXCLUSION_VIOLATION } from '../../db/errors.ts';
import type { AgentBookingSettings, AppointmentRow } from '../../db/schema.ts';
import type { Caller } from '../../platform/auth/caller.ts';
import type { TokenCredentialResolver } from '../../platform/auth/credentials.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { readAs, writeAs } from '../../platform/tenancy/caller-tx.ts';
import { AppError, Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { newId } from '../../platform/ids/ids.ts';
import { findAgentProfile, type AgentProfile } from '../agents/index.ts';
import {
  cancelAppointmentInTx,
  loadAppointment,
  moveAppointmentInTx,
  openManageToken,
  requireActive,
} from '../appointments/index.ts';
import { insertTaskInTx } from '../tasks/index.ts';
import type { AvailabilityQuery, BookingAvailability } from './booking.schema.ts';
import type { CancelVisitBody, ManagedVisit, MoveVisitBody } from './booking.manage.schema.ts';
import { availabilityOf, requireFreeSlot, slotUnavailable } from './booking.service.ts';
import { wallClock } from './booking.slots.ts';

/** Who the events name when a visitor acts through their link: the booking API, no key. */
const VISITOR: Actor = { kind: 'API', userId: null };

/**
 * A visitor's manage link as a credential (manifest `credentials`, decision 0237): a token this service
 * signed, naming the organization and the visit (the credential's id); nothing stored.
 */
export function visitorLinkCredential(secrets: SecretBox): TokenCredentialResolver {
  return {
    kind: 'visitor_link',
    scopes: ['booking:write'],
    // Per URL: a person or a calendar client polling, never a crawler's pace.
    limits: { requestsPerMinute: 60, writesPerMinute: 10 },
    actor: VISITOR,
    notFound: () => Errors.notFound('Visit', 'this link'),
    async resolve(token) {
      const opened = openManageToken(secrets, token);
      return opened && { organizationId: opened.organizationId, id: opened.appointmentId, agentId: null };
    },
  };
}

/** The visit a visitor-link caller holds. */
const visitOf = (caller: Caller) => ({ organizationId: caller.organization.id, appointmentId: caller.keyId });
const PICK = 'pick one from GET /v1/booking/manage/{token}/availability';
const PICK_ANOTHER = 'pick another from GET /v1/booking/manage/{token}/availability';

interface OpenVisit {
  organizationId: string;
  row: AppointmentRow;
  agent: AgentProfile | null;
}

/**
 * The visit a link names, inside the caller's transaction (row locked for a change): 404 when the
 * link is not ours, the visit was deleted, or it has started (the link is valid until then).
 */
async function openVisit(tx: Tx, token: { organizationId: string; appointmentId: string }, lock: boolean) {
  let row: AppointmentRow;
  try {
    row = await loadAppointment(tx, token.organizationId, token.appointmentId, lock);
  } catch {
    throw Errors.notFound('Visit', 'this link');
  }
  if (row.startsAt.getTime() <= Date.now()) {
    throw new AppError(
      'NOT_FOUND',
      `This visit link expired when the visit began (${row.startsAt.toISOString()}): ask the agency for any change`,
    );
  }
  const agent = await findAgentProfile(tx, token.organizationId, row.agentId);
  return { organizationId: token.organizationId, row, agent } satisfies OpenVisit;
}

function viewOf({ row, agent }: OpenVisit): ManagedVisit {
  const timezone = agent?.booking?.timezone ?? 'UTC';
  const local = wallClock(row.startsAt.getTime(), timezone);
  return {
    appointmentId: row.id,
    status: row.status,
    type: row.type,
    startsAt: row.startsAt.toISOString(),
    endsAt: row.endsAt.toISOString(),
    timezone,
    date: local.date,
    startTime: local.time,
    agent: {
      fullName: agent?.fullName ?? '',
      photoUrl: agent?.photoUrl ?? null,
      slug: agent?.bookingSlug ?? null,
    },
    propertyId: row.propertyId,
    canChange: row.status === 'SCHEDULED' || row.status === 'CONFIRMED',
  };
}

/** The visit a manage link names, as its visitor sees it. */
export async function getManagedVisit(db: Database, caller: Caller): Promise<ManagedVisit> {
  const opened = visitOf(caller);
  return viewOf(await readAs(db, caller, (tx) => openVisit(tx, opened, false)));
}

/** The agent's free slots of a month for moving the visit (its own time counts as free). */
export async function managedAvailability(
  db: Database,
  caller: Caller,
  query: AvailabilityQuery,
): Promise<BookingAvailability> {
  const opened = visitOf(caller);
  return readAs(db, caller, async (tx) => {
    const visit = await openVisit(tx, opened, false);
    const booking = visit.agent?.active ? visit.agent.booking : null;
    return availabilityOf(
      tx,
      opened.organizationId,
      { id: visit.row.agentId, booking },
      query,
      Date.now(),
      visit.row.id,
    );
  });
}

/** The agent's notification of a visitor's change, in the change's transaction. */
async function notifyAgent(tx: Tx, visit: OpenVisit, title: string, description: string): Promise<void> {
  await insertTaskInTx(tx, {
    id: newId('task'),
    organizationId: visit.organizationId,
    title,
    description,
    type: 'NOTIFICATION',
    status: 'PENDING',
    dueAt: new Date(),
    assigneeId: visit.row.agentId,
    contactId: visit.row.contactId,
    appointmentId: visit.row.id,
  });
}

const localTime = (visit: OpenVisit) => {
  const view = viewOf(visit);
  return `${view.date} ${view.startTime} (${view.timezone})`;
};

/**
 * The visitor cancels: CANCELLED, the agent's time free, the agent notified, `appointment.updated`
 * recorded, in one transaction. Cancelling again answers the cancelled visit with nothing recorded;
 * a COMPLETED or NO_SHOW visit is a 409.
 */
export async function cancelManagedVisit(
  db: Database,
  caller: Caller,
  body: CancelVisitBody,
): Promise<ManagedVisit> {
  const opened = visitOf(caller);
  return writeAs(db, caller, async (tx) => {
    const visit = await openVisit(tx, opened, true);
    if (visit.row.status === 'CANCELLED') return viewOf(visit);
    const reason = body.reason?.trim() || undefined;
    await cancelAppointmentInTx(
      tx,
      opened.organizationId,
      visit.row,
      reason ? `by the visitor: ${reason}` : 'by the visitor',
      VISITOR,
    );
    await notifyAgent(
      tx,
      visit,
      `Visit cancelled by the visitor: ${localTime(visit)}`,
      reason ? `Reason given: ${reason}` : 'No reason given.',
    );
    const row = await loadAppointment(tx, opened.organizationId, opened.appointmentId);
    return viewOf({ ...visit, row });
  });
}

/**
 * The visitor moves the visit to another free slot of the same agent, checked as a booking (400 for a
 * slot never offered, a closed day or time off; 409 for a taken one, also when two visitors race for
 * it: exactly one commits), the agent notified, `appointment.updated` recorded, in one transaction.
 */
export async function moveManagedVisit(
  db: Database,
  caller: Caller,
  body: MoveVisitBody,
): Promise<ManagedVisit> {
  const opened = visitOf(caller);
  try {
    return await writeAs(db, caller, async (tx) => {
      const visit = await openVisit(tx, opened, true);
      requireActive(visit.row, 'moved');
      const booking: AgentBookingSettings | null = visit.agent?.active ? visit.agent.booking : null;
      const before = localTime(visit);
      const slot = await requireFreeSlot(
        tx,
        opened.organizationId,
        { id: visit.row.agentId, booking },
        body,
        { now: Date.now(), pick: PICK, pickAnother: PICK_ANOTHER, exceptId: visit.row.id },
      );
      await moveAppointmentInTx(
        tx,
        opened.organizationId,
        visit.row,
        { startsAt: new Date(slot.startsAt), endsAt: new Date(slot.endsAt) },
        VISITOR,
      );
      const row = await loadAppointment(tx, opened.organizationId, opened.appointmentId);
      const moved = { ...visit, row };
      await notifyAgent(
        tx,
        moved,
        `Visit moved by the visitor to ${localTime(moved)}`,
        `It was on ${before}.`,
      );
      return viewOf(moved);
    });
  } catch (error) {
    // A parallel booking or move of an overlapping slot committed first (appointments_no_overlap).
    if (databaseError(error)?.code === EXCLUSION_VIOLATION)
      throw slotUnavailable(body.date, body.startTime, PICK_ANOTHER);
    throw error;
  }
}
