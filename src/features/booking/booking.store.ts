import { and, asc, eq, gt, inArray, lt } from 'drizzle-orm';
import type { Tx } from '../../db/database.ts';
import {
  ACTIVE_APPOINTMENT_STATUSES,
  appointments,
  tasks,
  type AppointmentRow,
  type TaskRow,
} from '../../db/schema.ts';

export type NewAppointment = typeof appointments.$inferInsert;
export type NewTask = typeof tasks.$inferInsert;

/** An agent's appointments that hold time (SCHEDULED, CONFIRMED) and overlap [from, to). */
export async function listBusyIntervals(
  tx: Tx,
  organizationId: string,
  agentId: string,
  from: Date,
  to: Date,
): Promise<{ startsAt: number; endsAt: number }[]> {
  const rows = await tx
    .select({ startsAt: appointments.startsAt, endsAt: appointments.endsAt })
    .from(appointments)
    .where(
      and(
        eq(appointments.organizationId, organizationId),
        eq(appointments.agentId, agentId),
        inArray(appointments.status, [...ACTIVE_APPOINTMENT_STATUSES]),
        lt(appointments.startsAt, to),
        gt(appointments.endsAt, from),
      ),
    )
    .orderBy(asc(appointments.startsAt));
  return rows.map((row) => ({ startsAt: row.startsAt.getTime(), endsAt: row.endsAt.getTime() }));
}

export async function insertAppointment(tx: Tx, row: NewAppointment): Promise<AppointmentRow> {
  const rows = await tx.insert(appointments).values(row).returning();
  return rows[0] as AppointmentRow;
}

export async function insertTask(tx: Tx, row: NewTask): Promise<TaskRow> {
  const rows = await tx.insert(tasks).values(row).returning();
  return rows[0] as TaskRow;
}
