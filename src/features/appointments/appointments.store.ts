import { and, asc, count, desc, eq, gte, lt, ne, sql, type SQL } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import { keysetConditions, keysetOrder, keysetPosition, type Keyed, type Keyset } from '../../db/keyset.ts';
import { agents, agentTimeHeld, appointments, contacts, type AppointmentRow } from '../../db/schema.ts';

export type NewAppointment = typeof appointments.$inferInsert;

/** The list filters, already parsed by the service. Each one is served by an index (see the schema). */
export interface AppointmentFilter {
  from?: Date;
  to?: Date;
  agentId?: string;
  contactId?: string;
  status?: AppointmentRow['status'];
  type?: AppointmentRow['type'];
}

export interface AppointmentSort {
  by: 'startsAt' | 'createdAt';
  order: 'asc' | 'desc';
}

/** What an appointment's events and defaults need to know about its agent. */
export interface AgentRef {
  id: string;
  /** The agent's booking time zone; null when the agent has no booking settings. */
  timezone: string | null;
  slotMinutes: number | null;
}

/** The contact summary that appointment events carry. */
export interface ContactRef {
  id: string;
  firstName: string;
  lastName: string;
  phone: string | null;
  email: string | null;
}

export async function insertAppointment(tx: Tx, row: NewAppointment): Promise<AppointmentRow> {
  const rows = await tx.insert(appointments).values(row).returning();
  return rows[0] as AppointmentRow;
}

export async function findAppointmentById(
  tx: Tx,
  organizationId: string,
  id: string,
  lock = false,
): Promise<AppointmentRow | null> {
  const query = tx
    .select()
    .from(appointments)
    .where(and(eq(appointments.organizationId, organizationId), eq(appointments.id, id)))
    .limit(1);
  const rows = lock ? await query.for('update') : await query;
  return rows[0] ?? null;
}

export async function updateAppointment(
  tx: Tx,
  organizationId: string,
  id: string,
  changes: Partial<NewAppointment>,
): Promise<AppointmentRow | null> {
  const rows = await tx
    .update(appointments)
    .set({ ...changes, updatedAt: sql`now()` })
    .where(and(eq(appointments.organizationId, organizationId), eq(appointments.id, id)))
    .returning();
  return rows[0] ?? null;
}

export async function deleteAppointment(
  tx: Tx,
  organizationId: string,
  id: string,
): Promise<AppointmentRow | null> {
  const rows = await tx
    .delete(appointments)
    .where(and(eq(appointments.organizationId, organizationId), eq(appointments.id, id)))
    .returning();
  return rows[0] ?? null;
}

/** An active appointment of the agent overlapping [startsAt, endsAt), other than `exceptId`. */
export async function findOverlapping(
  tx: Tx,
  organizationId: string,
  agentId: string,
  startsAt: Date,
  endsAt: Date,
  exceptId: string | null,
): Promise<AppointmentRow | null> {
  const where = agentTimeHeld(organizationId, agentId, startsAt, endsAt);
  if (exceptId !== null) where.push(ne(appointments.id, exceptId));
  const rows = await tx
    .select()
    .from(appointments)
    .where(and(...where))
    .orderBy(asc(appointments.startsAt))
    .limit(1);
  return rows[0] ?? null;
}

function conditions(organizationId: string, filter: AppointmentFilter): SQL | undefined {
  const where: SQL[] = [eq(appointments.organizationId, organizationId)];
  if (filter.from !== undefined) where.push(gte(appointments.startsAt, filter.from));
  if (filter.to !== undefined) where.push(lt(appointments.startsAt, filter.to));
  if (filter.agentId !== undefined) where.push(eq(appointments.agentId, filter.agentId));
  if (filter.contactId !== undefined) where.push(eq(appointments.contactId, filter.contactId));
  if (filter.status !== undefined) where.push(eq(appointments.status, filter.status));
  if (filter.type !== undefined) where.push(eq(appointments.type, filter.type));
  return and(...where);
}

/** One page of the organization's appointments; the id breaks ties so pages never overlap. */
export async function listAppointments(
  tx: Tx,
  organizationId: string,
  filter: AppointmentFilter,
  sort: AppointmentSort,
  page: { limit: number; offset: number },
): Promise<{ items: AppointmentRow[]; total: number }> {
  const where = conditions(organizationId, filter);
  const direction = sort.order === 'asc' ? asc : desc;
  const column = sort.by === 'createdAt' ? appointments.createdAt : appointments.startsAt;
  const [items, totals] = await Promise.all([
    tx
      .select()
      .from(appointments)
      .where(where)
      .orderBy(direction(column), direction(appointments.id))
      .limit(page.limit)
      .offset(page.offset),
    tx.select({ total: count() }).from(appointments).where(where),
  ]);
  return { items, total: Number(totals[0]?.total ?? 0) };
}

/** A cursor page: the appointments matching `filter` after the keyset's position, oldest change first. */
export async function listAppointmentsByUpdatedAt(
  tx: Tx,
  organizationId: string,
  filter: AppointmentFilter,
  keyset: Keyset,
): Promise<Keyed<AppointmentRow>[]> {
  const rows = await tx
    .select({ appointment: appointments, position: keysetPosition(appointments.updatedAt) })
    .from(appointments)
    .where(and(conditions(organizationId, filter), ...keysetConditions(appointments, keyset)))
    .orderBy(...keysetOrder(appointments))
    .limit(keyset.limit);
  return rows.map(({ appointment, position }) => ({
    row: appointment,
    key: { updatedAt: position, id: appointment.id },
  }));
}

// The agent's and contact's cards that appointment events carry are read here, in the event's own
// statement shape; existence checks of references go through the owning features' services.

export async function findAgentRef(tx: Tx, organizationId: string, id: string): Promise<AgentRef | null> {
  const rows = await tx
    .select({
      id: agents.id,
      timezone: sql<string | null>`${agents.booking} ->> 'timezone'`,
      slotMinutes: sql<string | null>`${agents.booking} ->> 'slotMinutes'`,
    })
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), eq(agents.id, id)))
    .limit(1);
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    timezone: row.timezone,
    slotMinutes: row.slotMinutes === null ? null : Number(row.slotMinutes),
  };
}

export async function findContactRef(tx: Tx, organizationId: string, id: string): Promise<ContactRef | null> {
  const rows = await tx
    .select({
      id: contacts.id,
      firstName: contacts.firstName,
      lastName: contacts.lastName,
      phone: contacts.phone,
      email: contacts.email,
    })
    .from(contacts)
    .where(and(eq(contacts.organizationId, organizationId), eq(contacts.id, id)))
    .limit(1);
  return rows[0] ?? null;
}

/**
 * An agent's appointments that hold time (SCHEDULED, CONFIRMED) and overlap [from, to), other than
 * `exceptId` (a rescheduled appointment does not block its own move).
 */
export async function listBusyIntervals(
  tx: Tx,
  organizationId: string,
  agentId: string,
  from: Date,
  to: Date,
  exceptId: string | null = null,
): Promise<{ startsAt: number; endsAt: number }[]> {
  const where = agentTimeHeld(organizationId, agentId, from, to);
  if (exceptId !== null) where.push(ne(appointments.id, exceptId));
  const rows = await tx
    .select({ startsAt: appointments.startsAt, endsAt: appointments.endsAt })
    .from(appointments)
    .where(and(...where))
    .orderBy(asc(appointments.startsAt));
  return rows.map((row) => ({ startsAt: row.startsAt.getTime(), endsAt: row.endsAt.getTime() }));
}

/** A contact's appointments, locked for a handover (merge or erasure), by id. */
export async function lockAppointmentsOfContact(
  tx: Tx,
  organizationId: string,
  contactId: string,
): Promise<AppointmentRow[]> {
  return tx
    .select()
    .from(appointments)
    .where(and(eq(appointments.organizationId, organizationId), eq(appointments.contactId, contactId)))
    .orderBy(asc(appointments.id))
    .for('update');
}

/**
 * Serialises the booking writes of one agent until the transaction ends (an advisory lock): what the
 * daily maximum needs, since a count is no constraint.
 */
export async function lockAgentBookings(tx: Tx, agentId: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`agent-day:${agentId}`}, 0))`);
}
